/** Line ends at the byte level: `\n` (0x0A) never occurs inside a UTF-8 sequence, so lines are cut on bytes. */
export const NEWLINE = 0x0a;

const ONES = 0x01010101;
const LOW7 = 0x7f7f7f7f;
const SPREAD_NEWLINE = 0x0a0a0a0a;

/**
 * How many `\n` bytes `bytes` holds. Counts four bytes per step (aligned 32-bit words, the exact zero-byte
 * test of "Bit Twiddling Hacks" on `word ^ 0x0a0a0a0a`): on ~100-byte log lines it is about twice as fast as one
 * `indexOf` per line, which matters when a page near the end of a big file counts every line before it.
 */
export function countNewlines(bytes: Uint8Array): number {
  const length = bytes.byteLength;
  let count = 0;
  let at = 0;
  const head = Math.min(length, (4 - (bytes.byteOffset & 3)) & 3);
  for (; at < head; at++) if (bytes[at] === NEWLINE) count++;
  const words = (length - at) >>> 2;
  if (words > 0) {
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset + at, words);
    for (let i = 0; i < words; i++) {
      const x = view[i]! ^ SPREAD_NEWLINE;
      // 0x80 in each byte of x that is zero, nothing elsewhere (no carries between bytes).
      const zeros = ~(((x & LOW7) + LOW7) | x | LOW7);
      if (zeros !== 0) count += Math.imul((zeros >>> 7) & ONES, ONES) >>> 24;
    }
    at += words * 4;
  }
  for (; at < length; at++) if (bytes[at] === NEWLINE) count++;
  return count;
}
