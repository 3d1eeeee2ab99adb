/**
 * Trigrams over bytes, as Google Code Search indexes them (https://swtch.com/~rsc/regexp/regexp4.html): every
 * run of three bytes, packed into 24 bits. ASCII letters are folded to lower case before packing, so one index
 * serves case-sensitive and case-insensitive queries (the verification against the bytes makes either exact);
 * bytes ≥ 0x80 are kept as they are.
 *
 * Each (trigram, file) also carries a 16-bit GramMask, as in Cursor's "phrase-aware" trigram index: which byte
 * offsets mod 8 the trigram starts at in the file, and a bloom bit of each byte that follows it. A literal's
 * trigrams must then also sit at offsets that agree mod 8 and be followed by the literal's next bytes, which
 * rules out most files that hold every trigram of `_TIMEOUT_MS` but not the phrase (measured on the kernel
 * tree: 2868 → 907 candidates of 417 real ones).
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
 * A trigram's mask in one file: bit `o & 7` of the low byte for each offset `o` it starts at, bit
 * `nextBit(b)` of the high byte for each (folded) byte `b` right after it. Never 0 for a trigram the file has.
 */
export type GramMask = number;

/** The high-byte bit standing for a following byte (already folded). */
export function nextBit(folded: number): number {
  return 1 << (8 + (((folded * 0x9e) >>> 5) & 7));
}

const NEXT_BIT: Uint16Array = (() => {
  const table = new Uint16Array(256);
  for (let b = 0; b < 256; b++) table[b] = nextBit(FOLD_BYTE[b]!);
  return table;
})();

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

/** One file's distinct trigrams in ascending order, `masks[i]` the GramMask of `trigrams[i]`. */
export interface SortedTrigrams {
  readonly trigrams: Uint32Array;
  readonly masks: Uint16Array;
}

/**
 * Collects a file's distinct trigrams and their GramMasks with a dense 2^24 mask table (32 MiB, its pages only
 * resident where trigrams fall), cleared afterwards through the list of the trigrams it set, so one collector
 * serves every file of a build without re-zeroing.
 *
 * `compact`: a hash table sized to the file instead (~12 bytes a distinct trigram at most half full: 12 MiB for a
 * 1 MiB file, kilobytes for most), for a runtime that counts every allocated byte against a small limit — a
 * Cloudflare isolate has 128 MB, and counts the dense table whole though its pages are never touched. The same
 * trigrams and masks, in the same order; a little slower.
 */
export class TrigramCollector {
  private readonly seen: Uint16Array | undefined;
  private readonly sparse: SparseMasks | undefined;
  /** The last file's distinct trigrams in `[0, count)`; valid until the next `collect`. */
  trigrams: Uint32Array = new Uint32Array(1 << 16);
  /** `masks[i]` is the GramMask of `trigrams[i]`. */
  masks: Uint16Array = new Uint16Array(1 << 16);

  constructor(compact = false) {
    if (compact) this.sparse = new SparseMasks();
    else this.seen = new Uint16Array(TRIGRAM_SPACE);
  }

  collect(bytes: Uint8Array, length = bytes.length): CollectedTrigrams {
    if (this.sparse !== undefined) return this.collectSparse(this.sparse, bytes, length);
    const seen = this.seen!;
    const fold = FOLD_BYTE;
    const next = NEXT_BIT;
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
        // The trigram starts at i - 2; the byte after it is at i + 1 (none at the end of the file).
        const mask = (1 << ((i - 2) & 7)) | (i + 1 < length ? next[bytes[i + 1]!]! : 0);
        const had = seen[t]!;
        if (had === 0) {
          if (count === trigrams.length) trigrams = this.grow(count);
          trigrams[count++] = t;
          // Checked only on a trigram's first occurrence, so it costs nothing per byte.
          if (t === 0xe284aa || (t & 0xffff) === 0xc5bf) foldVariant = true;
        }
        seen[t] = had | mask;
      }
    }
    const masks = this.masks;
    for (let i = 0; i < count; i++) {
      const t = trigrams[i]!;
      masks[i] = seen[t]!;
      seen[t] = 0;
    }
    if (binary) count = 0;
    return { binary, foldVariant: foldVariant && !binary, count };
  }

  /** `collect` over a SparseMasks table: the same loop, the table's lookups in place of the dense array's. */
  private collectSparse(seen: SparseMasks, bytes: Uint8Array, length: number): CollectedTrigrams {
    const fold = FOLD_BYTE;
    const next = NEXT_BIT;
    let trigrams: Uint32Array = this.trigrams;
    let count = 0;
    let foldVariant = false;
    let binary = false;
    if (length > 0 && (bytes[0] === 0 || (length > 1 && bytes[1] === 0))) binary = true;
    if (length > 1 && bytes[0] === 0xc5 && bytes[1] === 0xbf) foldVariant = true;
    if (!binary && length >= 3) {
      seen.reserve(length - 2);
      let t = (fold[bytes[0]!]! << 8) | fold[bytes[1]!]!;
      for (let i = 2; i < length; i++) {
        const b = bytes[i]!;
        if (b === 0) {
          binary = true;
          break;
        }
        t = ((t << 8) | fold[b]!) & 0xffffff;
        const mask = (1 << ((i - 2) & 7)) | (i + 1 < length ? next[bytes[i + 1]!]! : 0);
        if (seen.or(t, mask)) {
          if (count === trigrams.length) trigrams = this.grow(count);
          trigrams[count++] = t;
          if (t === 0xe284aa || (t & 0xffff) === 0xc5bf) foldVariant = true;
        }
      }
    }
    const masks = this.masks;
    for (let i = 0; i < count; i++) masks[i] = seen.get(trigrams[i]!);
    seen.clear();
    if (binary) count = 0;
    return { binary, foldVariant: foldVariant && !binary, count };
  }

  /** The last file's distinct trigrams, sorted, with their masks, as new arrays (for the in-memory delta). */
  sortedCopy(count: number): SortedTrigrams {
    // Trigram and mask packed into one number (40 bits) sort together.
    const packed = new Float64Array(count);
    for (let i = 0; i < count; i++) packed[i] = this.trigrams[i]! * 0x10000 + this.masks[i]!;
    packed.sort();
    const trigrams = new Uint32Array(count);
    const masks = new Uint16Array(count);
    for (let i = 0; i < count; i++) {
      trigrams[i] = Math.floor(packed[i]! / 0x10000);
      masks[i] = packed[i]! % 0x10000;
    }
    return { trigrams, masks };
  }

  private grow(count: number): Uint32Array {
    const bigger = new Uint32Array(this.trigrams.length * 2);
    bigger.set(this.trigrams.subarray(0, count));
    this.trigrams = bigger;
    this.masks = new Uint16Array(bigger.length);
    return bigger;
  }
}

/**
 * Trigram → GramMask for one file: open addressing with linear probing over typed arrays, kept at most half full,
 * grown before a file that might fill it (`reserve`), emptied through the list of slots it used.
 */
class SparseMasks {
  /** trigram + 1 per slot; 0 is empty. */
  private keys = new Uint32Array(1 << 10);
  private values = new Uint16Array(1 << 10);
  private shift = 32 - 10;
  private used = new Uint32Array(1 << 9);
  private size = 0;

  /** Room for `distinct` more trigrams (a file of n bytes has at most n − 2). */
  reserve(distinct: number): void {
    let capacity = this.keys.length;
    const wanted = Math.min(distinct, TRIGRAM_SPACE) * 2;
    if (wanted <= capacity) return;
    while (capacity < wanted) capacity *= 2;
    this.keys = new Uint32Array(capacity);
    this.values = new Uint16Array(capacity);
    this.used = new Uint32Array(capacity / 2);
    this.shift = 32 - Math.log2(capacity);
  }

  /** ORs `mask` into `trigram`'s; true when the trigram was not there yet. */
  or(trigram: number, mask: number): boolean {
    const keys = this.keys;
    const key = trigram + 1;
    const last = keys.length - 1;
    for (let slot = Math.imul(key, 0x9e3779b1) >>> this.shift; ; slot = (slot + 1) & last) {
      const held = keys[slot]!;
      if (held === key) {
        this.values[slot]! |= mask;
        return false;
      }
      if (held === 0) {
        keys[slot] = key;
        this.values[slot] = mask;
        this.used[this.size++] = slot;
        return true;
      }
    }
  }

  get(trigram: number): number {
    const keys = this.keys;
    const key = trigram + 1;
    const last = keys.length - 1;
    for (let slot = Math.imul(key, 0x9e3779b1) >>> this.shift; ; slot = (slot + 1) & last) {
      const held = keys[slot]!;
      if (held === key) return this.values[slot]!;
      if (held === 0) return 0;
    }
  }

  clear(): void {
    for (let i = 0; i < this.size; i++) {
      const slot = this.used[i]!;
      this.keys[slot] = 0;
      this.values[slot] = 0;
    }
    this.size = 0;
  }
}

const encoder = new TextEncoder();

/** One trigram of a literal: where it starts within its run, and the byte that follows it there, if known. */
export interface LiteralGram {
  readonly trigram: number;
  readonly offset: number;
  /** The nextBit of the byte after it in the literal; 0 when none (the run's end). */
  readonly next: number;
}

/**
 * The trigrams a literal's occurrence must put into a file's index, in runs whose bytes keep their distances in
 * every file that holds the literal, or [] when it has none (shorter than three bytes).
 *
 * Case-sensitive, the literal is one run: its bytes are the file's (ASCII folded on both sides). Case-insensitive,
 * a trigram touching a non-ASCII byte is dropped (the index holds such bytes unfolded, and `é` may appear as `É`,
 * other bytes), and a non-ASCII character splits the runs: its case variants need not be as long in UTF-8
 * (`ß`, `ẞ`), so offsets across it are not fixed. (The ASCII letters' own non-ASCII variants, Kelvin sign and long
 * s, never reach this: files holding them are always candidates of a case-insensitive query.)
 */
export function literalGramRuns(literal: string, caseSensitive: boolean): LiteralGram[][] {
  const bytes = encoder.encode(literal);
  const runs: LiteralGram[][] = [];
  let run: LiteralGram[] = [];
  let runStart = 0;
  for (let i = 0; i + 2 < bytes.length; i++) {
    const a = bytes[i]!;
    const b = bytes[i + 1]!;
    const c = bytes[i + 2]!;
    if (!caseSensitive && (a | b | c) >= 0x80) {
      if (run.length > 0) runs.push(run);
      run = [];
      runStart = i + 1;
      continue;
    }
    const following = bytes[i + 3];
    const next = following === undefined || (!caseSensitive && following >= 0x80) ? 0 : nextBit(FOLD_BYTE[following]!);
    run.push({ trigram: (FOLD_BYTE[a]! << 16) | (FOLD_BYTE[b]! << 8) | FOLD_BYTE[c]!, offset: i - runStart, next });
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/** The distinct trigrams of `literalGramRuns` (the in-memory delta's test). */
export function literalTrigrams(literal: string, caseSensitive: boolean): number[] {
  return [...new Set(literalGramRuns(literal, caseSensitive).flat().map((gram) => gram.trigram))];
}
