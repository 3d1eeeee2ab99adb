import type { ByteRange } from './file-system.ts';
import { FsError } from './fs-error.ts';

/** Argument checks every backend shares, so they refuse bad input with the same code and message. */

/** Linux limits, applied by every backend alike so the memory backend refuses what the disk would. */
export const NAME_MAX_BYTES = 255;
export const PATH_MAX_BYTES = 4096;

const encoder = new TextEncoder();

/**
 * Backends take absolute paths only, never with NUL bytes (containment has normalised them already), and
 * within NAME_MAX / PATH_MAX measured in UTF-8 bytes.
 */
export function checkPath(path: string): void {
  if (typeof path !== 'string' || !path.startsWith('/') || path.includes('\0')) {
    throw new FsError('invalid', String(path), `invalid: path must be absolute: ${String(path)}`);
  }
  // Cheap pre-check: a UTF-8 byte is at least one UTF-16 unit's worth, at most three.
  if (path.length * 3 <= NAME_MAX_BYTES) return;
  if (encoder.encode(path).byteLength >= PATH_MAX_BYTES) throw new FsError('name-too-long', path);
  for (const segment of path.split('/')) {
    if (segment.length * 3 > NAME_MAX_BYTES && encoder.encode(segment).byteLength > NAME_MAX_BYTES) {
      throw new FsError('name-too-long', path);
    }
  }
}

/** Validates a ByteRange and returns [start, end) with `end` possibly Infinity. */
export function rangeBounds(range: ByteRange | undefined, path: string): [number, number] {
  if (!range) return [0, Infinity];
  const { offset, length } = range;
  const okInt = (n: number) => Number.isSafeInteger(n) && n >= 0;
  if (!okInt(offset) || (length !== undefined && !okInt(length))) {
    throw new FsError('invalid', path, `invalid: bad byte range for ${path}`);
  }
  return [offset, length === undefined ? Infinity : offset + length];
}

/** A streamed write's `maxBytes`: a non-negative safe integer, Infinity when omitted. */
export function maxBytesOf(maxBytes: number | undefined, path: string): number {
  if (maxBytes === undefined) return Infinity;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new FsError('invalid', path, `invalid: bad maxBytes for ${path}`);
  }
  return maxBytes;
}

/** A `writeAt` offset: a non-negative safe integer. */
export function checkOffset(offset: number, path: string): void {
  if (!Number.isSafeInteger(offset) || offset < 0) throw new FsError('invalid', path, `invalid: bad offset for ${path}`);
}

/** A readStream `chunkBytes` hint: a positive safe integer; undefined keeps the backend's default. */
export function chunkBytesOf(chunkBytes: number | undefined, fallback: number, path: string): number {
  if (chunkBytes === undefined) return fallback;
  if (!Number.isSafeInteger(chunkBytes) || chunkBytes < 1) {
    throw new FsError('invalid', path, `invalid: bad chunkBytes for ${path}`);
  }
  return chunkBytes;
}

/** A `readdir` limit: a non-negative safe integer, Infinity when omitted. */
export function readdirLimitOf(options: { limit?: number } | undefined, path: string): number {
  const limit = options?.limit;
  if (limit === undefined) return Infinity;
  if (!Number.isSafeInteger(limit) || limit < 0) throw new FsError('invalid', path, `invalid: bad readdir limit for ${path}`);
  return limit;
}
