/**
 * Where an entry's data starts (APPNOTE 4.3.7): after its local header's fixed 30 bytes, name and extra field,
 * whose lengths only the local header knows (they may differ from the central directory's). Nothing else in
 * it is trusted: the sizes, CRC and method are the central directory's. Messages are yauzl's.
 */
import { span, u16, u32 } from './bytes.ts';

const SIGNATURE = 0x04034b50;
const FIXED_SIZE = 30;

/** The entry's stored (compressed) bytes, as a view into the archive. */
export function entryData(bytes: Uint8Array, localHeaderOffset: number, compressedSize: number): Uint8Array {
  const header = span(bytes, localHeaderOffset, FIXED_SIZE);
  const signature = u32(header, 0);
  if (signature !== SIGNATURE) throw new Error(`invalid local file header signature: 0x${signature.toString(16)}`);
  const dataStart = localHeaderOffset + FIXED_SIZE + u16(header, 26) + u16(header, 28);
  if (dataStart + compressedSize > bytes.length) {
    throw new Error(`file data overflows file bounds: ${dataStart} + ${compressedSize} > ${bytes.length}`);
  }
  return bytes.subarray(dataStart, dataStart + compressedSize);
}
