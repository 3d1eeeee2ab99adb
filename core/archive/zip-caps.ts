/**
 * The zip-bomb caps (docs/noide-protocol.md#extract_zip): entries, uncompressed bytes in all, and the compression ratio of
 * each entry, checked on what the central directory declares, before anything is written. The adapter's
 * streams fail when an entry inflates past its declared size, and core/archive/extract-zip.ts counts the
 * bytes again, so the declared sizes these caps hold also bound what is actually written.
 */
import { WorkspaceError } from '../errors/workspace-error.ts';

export interface ZipCaps {
  maxEntries: number;
  /** Uncompressed bytes, all entries together. */
  maxBytes: number;
  /** Uncompressed : compressed, per entry. */
  maxRatio: number;
}

/**
 * Entries up to this size are not held to the ratio: a small file of one repeated byte deflates past 200:1
 * (4 KiB of zeros is ~20 bytes) and could do no harm, since the total cap bounds them all together. The same
 * grace as Apache POI's zip-bomb guard (ZipSecureFile: ratios are checked past 100 KiB).
 */
export const RATIO_GRACE_BYTES = 100 * 1024;

export interface DeclaredSizes {
  name: string;
  compressedSize: number;
  uncompressedSize: number;
}

export function checkEntryCount(count: number, caps: ZipCaps): void {
  if (count > caps.maxEntries) throw tooLarge(`${count} entries (the limit is ${caps.maxEntries})`, { entries: count });
}

export function checkDeclaredSizes(entries: readonly DeclaredSizes[], caps: ZipCaps): void {
  let total = 0;
  for (const entry of entries) {
    const { name, compressedSize, uncompressedSize } = entry;
    if (uncompressedSize > RATIO_GRACE_BYTES && uncompressedSize > compressedSize * caps.maxRatio) {
      const ratio = compressedSize === 0 ? 'from nothing' : `${Math.round(uncompressedSize / compressedSize)}:1`;
      throw tooLarge(`${name} expands ${ratio} (the limit is ${caps.maxRatio}:1 per entry)`, {
        name,
        compressedSize,
        uncompressedSize,
      });
    }
    total += uncompressedSize;
  }
  if (total > caps.maxBytes) {
    throw tooLarge(`${total} bytes uncompressed (the limit is ${caps.maxBytes} in all)`, { uncompressedBytes: total });
  }
}

function tooLarge(what: string, details: Record<string, unknown>): WorkspaceError {
  return new WorkspaceError('too-large', `Zip too large: ${what}`, details);
}
