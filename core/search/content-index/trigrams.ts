/**
 * Trigrams over bytes, as Google Code Search indexes them (https://swtch.com/~rsc/regexp/regexp4.html): every
 * run of three bytes, packed into 24 bits. ASCII letters are folded to lower case before packing, so one index
 * serves case-sensitive and case-insensitive queries (the verification against the bytes makes either exact);
 * bytes ≥ 0x80 are kept as they are.
 */

/** Byte → the byte the index stores: A–Z folded to a–z, everything else unchanged. */
export const FOLD_BYTE: Uint8Array = (() => {
  const table = new Uint8Array(256);
  for (let b = 0; b < 256; b++) table[b] = b >= 0x41 && b <= 0x5a ? b + 0x20 : b;
  return table;
})();

/** The number of distinct trigrams: three bytes. */
export const TRIGRAM_SPACE = 1 << 24;

/**
 * What one file's bytes gave: its distinct trigrams (unsorted, in first-seen order, in `trigrams[0..count)`), or
 * that it is binary (holds a NUL: text matching skips it, so it is not indexed).
 */
export interface CollectedTrigrams {
  binary: boolean;
  /**
   * The text holds U+212A KELVIN SIGN or U+017F LATIN SMALL LETTER LONG S, which Unicode simple case folding
   * (what a case-insensitive Rust/RE2 regex uses) matches with ASCII `k` and `s`: the folded trigrams cannot
   * vouch for such a file, so case-insensitive queries always keep it as a candidate.
   */
  foldVariant: boolean;
  count: number;
}

/**
 * Collects a file's distinct trigrams with a 2^24-bit bitmap, cleared afterwards through the list of the trigrams
 * it set, so one collector (2 MiB of bitmap) serves every file of a build without re-zeroing.
 */
export class TrigramCollector {
  private readonly seen = new Int32Array(TRIGRAM_SPACE >>> 5);
  /** The last file's distinct trigrams in `[0, count)`; valid until the next `collect`. */
  trigrams: Uint32Array = new Uint32Array(1 << 16);

  collect(bytes: Uint8Array, length = bytes.length): CollectedTrigrams {
    const seen = this.seen;
    const fold = FOLD_BYTE;
    let trigrams: Uint32Array = this.trigrams;
    let count = 0;
    let foldVariant = false;
    let binary = false;
    if (length > 0 && (bytes[0] === 0 || (length > 1 && bytes[1] === 0))) binary = true;
    // A long s in the first two bytes ends no trigram, so the check below cannot see it.
    if (length > 1 && bytes[0] === 0xc5 && bytes[1] === 0xbf) foldVariant = true;
    if (!binary && length >= 3) {
      let t = (fold[bytes[0]!]! << 8) | fold[bytes[1]!]!;
      for (let i = 2; i < length; i++) {
        const b = bytes[i]!;
        if (b === 0) {
          binary = true;
          break;
        }
        t = ((t << 8) | fold[b]!) & 0xffffff;
        const word = t >>> 5;
        const bit = 1 << (t & 31);
        if ((seen[word]! & bit) === 0) {
          seen[word] = seen[word]! | bit;
          if (count === trigrams.length) trigrams = this.grow(count);
          trigrams[count++] = t;
          // Checked only on a trigram's first occurrence, so it costs nothing per byte.
          if (t === 0xe284aa || (t & 0xffff) === 0xc5bf) foldVariant = true;
        }
      }
    }
    for (let i = 0; i < count; i++) {
      const t = trigrams[i]!;
      seen[t >>> 5] = seen[t >>> 5]! & ~(1 << (t & 31));
    }
    if (binary) count = 0;
    return { binary, foldVariant: foldVariant && !binary, count };
  }

  /** The last file's distinct trigrams, sorted, as a new array (for the in-memory delta). */
  sortedCopy(count: number): Uint32Array {
    return this.trigrams.slice(0, count).sort();
  }

  private grow(count: number): Uint32Array {
    const bigger = new Uint32Array(this.trigrams.length * 2);
    bigger.set(this.trigrams.subarray(0, count));
    this.trigrams = bigger;
    return bigger;
  }
}

const encoder = new TextEncoder();

/**
 * The trigrams a literal's occurrence must put into a file's index, deduplicated, or [] when it has none (shorter
 * than three bytes). Case-insensitive: a trigram touching a non-ASCII byte is dropped, as the index holds such
 * bytes unfolded and `é` may appear as `É` (other bytes) in the file.
 */
export function literalTrigrams(literal: string, caseSensitive: boolean): number[] {
  const bytes = encoder.encode(literal);
  const found = new Set<number>();
  for (let i = 0; i + 2 < bytes.length; i++) {
    const a = bytes[i]!;
    const b = bytes[i + 1]!;
    const c = bytes[i + 2]!;
    if (!caseSensitive && (a | b | c) >= 0x80) continue;
    found.add((FOLD_BYTE[a]! << 16) | (FOLD_BYTE[b]! << 8) | FOLD_BYTE[c]!);
  }
  return [...found];
}
