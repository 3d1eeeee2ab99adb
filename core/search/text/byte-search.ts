/**
 * Finding a needle in a file's raw bytes, before anything is decoded, exact or with ASCII letters folded
 * (A-Z = a-z). Two strategies, as ripgrep's memchr crate does:
 * - the needle's rarest byte (by BYTE_RANK, byte frequencies measured over the Linux tree's text files) found
 *   with `indexOf(byte)` — for each case of it when folded — and the needle checked around each hit. On a Node
 *   Buffer that `indexOf` is memchr (≈ 2.5 GB/s here, hits included), so a needle holding an uncommon byte (`q`,
 *   `Y`, `z`, …) costs a fraction of a byte-by-byte scan. On a plain Uint8Array (the memory backend, Workers)
 *   it is V8's slower loop, still correct;
 * - Boyer-Moore-Horspool in plain JavaScript (≈ 1 GB/s here, the same as Node's native needle search) when every
 *   byte of the needle is common.
 * Lower-casing or decoding the bytes first would cost seconds over the tree.
 */

export interface ByteSearch {
  /** The needle's length in bytes. */
  readonly length: number;
  /** The needle's first offset in `bytes[from, end)`, or -1. */
  indexIn(bytes: Uint8Array, from: number, end: number): number;
}

/** A–Z → a–z, every other byte unchanged (bytes of multi-byte UTF-8 sequences are all ≥ 0x80). */
const FOLD = (() => {
  const table = new Uint8Array(256);
  for (let byte = 0; byte < 256; byte++) table[byte] = byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte;
  return table;
})();
const IDENTITY = (() => {
  const table = new Uint8Array(256);
  for (let byte = 0; byte < 256; byte++) table[byte] = byte;
  return table;
})();

/**
 * Each byte's frequency rank in source text (0 rarest … 255 the most common, the space), counted over a
 * seventh of the Linux 6.1 tree's text files.
 */
const BYTE_RANK: readonly number[] = [
  0, 1, 2, 3, 4, 5, 6, 7, 8, 251, 250, 73, 81, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 74, 23, 24, 25, 26,
  255, 169, 207, 196, 164, 170, 185, 165, 231, 232, 230, 174, 235, 221, 204, 205, 240, 214, 209, 198, 195, 186, 190, 181, 192, 179, 188, 233, 182, 216, 208, 158,
  167, 223, 197, 226, 215, 234, 203, 199, 191, 225, 160, 183, 212, 211, 213, 210, 217, 171, 224, 227, 229, 200, 187, 180, 189, 178, 166, 177, 173, 176, 144, 253,
  162, 245, 218, 243, 242, 254, 237, 222, 228, 249, 168, 206, 241, 236, 246, 244, 238, 184, 248, 247, 252, 239, 220, 202, 219, 201, 175, 194, 172, 193, 161, 77,
  155, 128, 145, 126, 147, 135, 121, 122, 140, 133, 109, 129, 150, 119, 104, 141, 112, 95, 86, 93, 120, 116, 127, 102, 115, 123, 149, 118, 148, 100, 98, 106,
  130, 131, 97, 94, 108, 117, 111, 107, 146, 99, 103, 96, 91, 125, 134, 136, 132, 105, 89, 90, 92, 88, 114, 101, 152, 113, 143, 142, 151, 137, 110, 124,
  27, 28, 84, 87, 75, 83, 76, 29, 30, 31, 32, 33, 34, 35, 79, 78, 82, 80, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49,
  50, 51, 85, 138, 156, 163, 159, 157, 154, 153, 52, 53, 54, 55, 56, 139, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72,
];

/** Bytes ranked below this are rare enough to search for (`q` 0.2 % of bytes is 184, `k` 0.5 % is 206). */
const RARE_RANK = 200;

export function byteSearch(needle: Uint8Array, foldAscii: boolean): ByteSearch {
  if (needle.length === 0) throw new RangeError('empty needle');
  const fold = foldAscii ? FOLD : IDENTITY;
  const rare = rarestByte(needle, foldAscii);
  if (rare !== undefined) return rareByteSearch(needle.map((byte) => fold[byte]!), fold, rare.offset, rare.variants);
  return horspool(needle, fold);
}

/** The needle's rarest byte (its offset and the bytes standing for it), if it is rare enough. */
function rarestByte(needle: Uint8Array, foldAscii: boolean): { offset: number; variants: number[] } | undefined {
  let best: { offset: number; variants: number[]; rank: number } | undefined;
  for (let offset = 0; offset < needle.length; offset++) {
    const byte = needle[offset]!;
    const lower = FOLD[byte]!;
    const variants = foldAscii && lower >= 0x61 && lower <= 0x7a ? [lower, lower - 0x20] : [byte];
    const rank = Math.max(...variants.map((variant) => BYTE_RANK[variant]!));
    if (best === undefined || rank < best.rank) best = { offset, variants, rank };
  }
  return best !== undefined && best.rank < RARE_RANK ? best : undefined;
}

function rareByteSearch(pattern: Uint8Array, fold: Uint8Array, offset: number, variants: number[]): ByteSearch {
  const length = pattern.length;
  const matchesAt = (bytes: Uint8Array, start: number) => {
    for (let i = 0; i < length; i++) if (fold[bytes[start + i]!] !== pattern[i]) return false;
    return true;
  };
  const [first, second] = variants as [number, number | undefined];
  return {
    length,
    indexIn(bytes, from, end) {
      const last = end - (length - offset); // the last position the rare byte can be at
      let a = bytes.indexOf(first, from + offset);
      let b = second === undefined ? -1 : bytes.indexOf(second, from + offset);
      for (;;) {
        const at = a < 0 ? b : b < 0 ? a : Math.min(a, b);
        if (at < 0 || at > last) return -1;
        if (matchesAt(bytes, at - offset)) return at - offset;
        if (at === a) a = bytes.indexOf(first, at + 1);
        else b = bytes.indexOf(second!, at + 1);
      }
    },
  };
}

function horspool(needle: Uint8Array, fold: Uint8Array): ByteSearch {
  const pattern = needle.map((byte) => fold[byte]!);
  const last = pattern.length - 1;
  // The shift for the byte under the window's last position: distance from its last occurrence in the needle
  // (excluding the final position) to the end. Folded: both cases of a letter get the same shift.
  const shift = new Int32Array(256).fill(pattern.length);
  for (let at = 0; at < last; at++) {
    for (let byte = 0; byte < 256; byte++) if (fold[byte] === pattern[at]) shift[byte] = last - at;
  }
  const lastByte = pattern[last]!;
  return {
    length: pattern.length,
    indexIn(bytes, from, end) {
      let at = from + last;
      while (at < end) {
        const byte = bytes[at]!;
        if (fold[byte] === lastByte) {
          let i = last - 1;
          let j = at - 1;
          while (i >= 0 && fold[bytes[j]!] === pattern[i]) {
            i--;
            j--;
          }
          if (i < 0) return at - last;
        }
        at += shift[byte]!;
      }
      return -1;
    },
  };
}
