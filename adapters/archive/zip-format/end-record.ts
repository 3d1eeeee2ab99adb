/**
 * Finding the central directory (APPNOTE 4.3.14–4.3.16): the end of central directory record, searched for
 * backwards over the last 64 KiB + 42 bytes (its comment may be up to 65 535 bytes long), and the zip64 record a
 * locator just before it points to. The search, its order and its messages are yauzl's, so an archive the
 * Node adapter refuses is refused here in the same words (adapters/archive/yauzl-zip-adapter.ts).
 */
import { span, u16, u32, u64 } from './bytes.ts';

export interface EndRecord {
  /** As declared: nothing is read to check it, so a cap can refuse a huge count before anything is built. */
  entryCount: number;
  centralDirectoryOffset: number;
}

const END_SIGNATURE = 0x06054b50;
const END_SIZE = 22;
const LOCATOR_SIGNATURE = 0x07064b50;
const LOCATOR_SIZE = 20;
const ZIP64_END_SIGNATURE = 0x06064b50;
const ZIP64_END_SIZE = 56;
const MAX_COMMENT = 0xffff;

export function readEndRecord(bytes: Uint8Array): EndRecord {
  const windowStart = Math.max(0, bytes.length - (LOCATOR_SIZE + END_SIZE + MAX_COMMENT));
  for (let at = bytes.length - END_SIZE; at >= windowStart; at--) {
    if (u32(bytes, at) !== END_SIGNATURE) continue;
    // The last signature found decides: a comment that merely contains one is an error, not a second chance.
    const commentLength = u16(bytes, at + 20);
    const expected = bytes.length - at - END_SIZE;
    if (commentLength !== expected) {
      throw new Error(
        `Invalid comment length. Expected: ${expected}. Found: ${commentLength}. ` +
          'Are there extra bytes at the end of the file? Or is the end of central dir signature `PK☺☻` in the comment?',
      );
    }
    const locator = at - LOCATOR_SIZE;
    if (locator >= windowStart && u32(bytes, locator) === LOCATOR_SIGNATURE) return readZip64EndRecord(bytes, u64(bytes, locator + 8));
    const disk = u16(bytes, at + 4);
    if (disk !== 0) throw new Error(`multi-disk zip files are not supported: found disk number: ${disk}`);
    return { entryCount: u16(bytes, at + 10), centralDirectoryOffset: u32(bytes, at + 16) };
  }
  throw new Error('End of central directory record signature not found. Either not a zip file, or file is truncated.');
}

/** The zip64 record's count and offset replace the end record's, whatever those say (0xffff… or not). */
function readZip64EndRecord(bytes: Uint8Array, offset: number): EndRecord {
  const record = span(bytes, offset, ZIP64_END_SIZE);
  if (u32(record, 0) !== ZIP64_END_SIGNATURE) throw new Error('invalid zip64 end of central directory record signature');
  const disk = u32(record, 16);
  if (disk !== 0) throw new Error(`multi-disk zip files are not supported: found disk number: ${disk}`);
  return { entryCount: u64(record, 32), centralDirectoryOffset: u64(record, 48) };
}
