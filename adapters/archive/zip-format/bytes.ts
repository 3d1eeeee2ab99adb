/**
 * The zip format's little-endian fields, and reads of a span of the archive that fail as yauzl's reads do
 * ("unexpected EOF") when the span runs past the archive's end, so both adapters name a truncation alike.
 */

export const u16 = (bytes: Uint8Array, at: number): number => bytes[at]! | (bytes[at + 1]! << 8);

export const u32 = (bytes: Uint8Array, at: number): number =>
  (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;

/**
 * A 64-bit field as a number: exact up to 2^53, approximate past it. Either way a span that large runs past
 * any archive held in memory, so the read that uses it fails with "unexpected EOF" rather than wrapping.
 */
export const u64 = (bytes: Uint8Array, at: number): number => u32(bytes, at + 4) * 0x1_0000_0000 + u32(bytes, at);

/** `length` bytes at `position`, as a view (no copy). */
export function span(bytes: Uint8Array, position: number, length: number): Uint8Array {
  if (length > 0 && !(position + length <= bytes.length)) throw new Error('unexpected EOF');
  return bytes.subarray(position, position + length);
}
