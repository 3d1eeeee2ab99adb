import type { ByteRange } from './file-system.ts';
import { FsError } from './fs-error.ts';

/** Argument checks every backend shares, so they refuse bad input with the same code and message. */

/** Backends take absolute paths only, never with NUL bytes (containment has normalised them already). */
export function checkPath(path: string): void {
  if (typeof path !== 'string' || !path.startsWith('/') || path.includes('\0')) {
    throw new FsError('invalid', String(path), `invalid: path must be absolute: ${String(path)}`);
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
