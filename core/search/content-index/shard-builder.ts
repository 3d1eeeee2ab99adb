/**
 * Builds one shard from files added in id order. Each file's distinct trigrams (and their GramMasks, in a
 * parallel array) are appended to one flat array;
 * `finish` turns them into posting lists with a counting sort over the whole trigram space (a dense 2^24 counter,
 * allocated once per builder and cleared through the list of trigrams seen), so a shard of millions of postings
 * costs a few linear passes and no per-trigram objects.
 */
import { TRIGRAM_SPACE } from './trigrams.ts';
import { MASK_BYTES } from './postings.ts';
import { shardByteLength, writeShardHead } from './shard-format.ts';

/**
 * Scratch sizes of a builder that makes many shards (a build worker). Buffers over 32 MiB are mmapped by glibc
 * and handed back to the OS when freed; medium ones freed over and over stay in the thread's malloc arena after
 * the thread ends (measured: ~120 MiB of RSS kept after a kernel build). So a bulk builder takes its large
 * buffers once, above that size (untouched pages cost nothing), and reuses them for every shard.
 */
const BULK_PAIRS = 1 << 24;
/** A compact finish packs a posting's position into 29 bits. */
const POSITIONS = 2 ** 29;

export class ShardBuilder {
  private counts: Uint32Array | undefined;
  private pairs: Uint32Array;
  private pairMasks: Uint16Array;
  private ids: Uint32Array | undefined;
  private idMasks: Uint16Array | undefined;
  private pairCount = 0;
  /** Per added file: its local id and where its trigrams start in `pairs`. */
  private fileIds: number[] = [];
  private fileStarts: number[] = [];

  /**
   * `bulk`: keep large scratch buffers across shards (see BULK_PAIRS); off for the occasional delta flush.
   * `compact`: `finish` sorts the postings instead of counting them in the dense 2^24 table (64 MiB), so memory
   * follows the shard (~24 bytes a posting while it finishes): for a runtime with a small memory limit that counts
   * every allocated byte (./trigrams.ts, TrigramCollector). The same bytes either way.
   */
  constructor(
    private readonly bulk = false,
    private readonly compact = false,
  ) {
    this.pairs = new Uint32Array(bulk ? BULK_PAIRS : 1 << 16);
    this.pairMasks = new Uint16Array(this.pairs.length);
  }

  /** Postings added since the last `finish`: a shard's memory while building is about 8 bytes each. */
  get postings(): number {
    return this.pairCount;
  }

  /**
   * Adds a file's distinct trigrams (`trigrams[0..count)`, any order) with their GramMasks (`masks[i]` for
   * `trigrams[i]`); local ids must ascend.
   */
  add(localId: number, trigrams: Uint32Array, masks: Uint16Array, count: number): void {
    if (this.pairCount + count > this.pairs.length) {
      let size = this.pairs.length * 2;
      while (size < this.pairCount + count) size *= 2;
      const bigger = new Uint32Array(size);
      bigger.set(this.pairs.subarray(0, this.pairCount));
      this.pairs = bigger;
      const biggerMasks = new Uint16Array(size);
      biggerMasks.set(this.pairMasks.subarray(0, this.pairCount));
      this.pairMasks = biggerMasks;
    }
    this.pairs.set(trigrams.subarray(0, count), this.pairCount);
    this.pairMasks.set(masks.subarray(0, count), this.pairCount);
    this.fileIds.push(localId);
    this.fileStarts.push(this.pairCount);
    this.pairCount += count;
  }

  /** The shard's bytes for ids `base .. base + span`; the builder is empty again afterwards. */
  finish(base: number, span: number): Uint8Array {
    if (this.compact) return this.finishSorted(base, span);
    const counts = (this.counts ??= new Uint32Array(TRIGRAM_SPACE));
    const pairs = this.pairs;
    const total = this.pairCount;
    const distinct: number[] = [];
    for (let i = 0; i < total; i++) {
      const t = pairs[i]!;
      if (counts[t] === 0) distinct.push(t);
      counts[t] = counts[t]! + 1;
    }
    const trigrams = Uint32Array.from(distinct).sort();
    const n = trigrams.length;
    // counts[t] becomes where t's ids go in `ids`; `starts` keeps the list boundaries.
    const starts = new Uint32Array(n + 1);
    let at = 0;
    for (let i = 0; i < n; i++) {
      const t = trigrams[i]!;
      starts[i] = at;
      at += counts[t]!;
      counts[t] = starts[i]!;
    }
    starts[n] = at;
    if (this.ids === undefined || this.ids.length < total) {
      this.ids = new Uint32Array(this.bulk ? pairs.length : total);
      this.idMasks = new Uint16Array(this.ids.length);
    }
    const ids = this.ids;
    const idMasks = this.idMasks!;
    const pairMasks = this.pairMasks;
    const files = this.fileIds.length;
    for (let f = 0; f < files; f++) {
      const id = this.fileIds[f]!;
      const end = f + 1 < files ? this.fileStarts[f + 1]! : total;
      for (let p = this.fileStarts[f]!; p < end; p++) {
        const slot = counts[pairs[p]!]!++;
        ids[slot] = id;
        idMasks[slot] = pairMasks[p]!;
      }
    }
    for (let i = 0; i < n; i++) counts[trigrams[i]!] = 0;

    const out = encodeShard(base, span, trigrams, starts, ids, idMasks);
    this.pairCount = 0;
    this.fileIds = [];
    this.fileStarts = [];
    if (!this.bulk) {
      this.ids = undefined;
      this.idMasks = undefined;
      if (this.pairs.length > 1 << 20) this.shrinkPairs();
    }
    return out;
  }

  /**
   * `finish` without the dense counter: each posting's (trigram, position) packed into one double (24 + 29 bits,
   * exact below 2^53) and sorted. Positions follow the files' order, so each trigram's ids come out ascending, as
   * the counting sort leaves them.
   */
  private finishSorted(base: number, span: number): Uint8Array {
    const total = this.pairCount;
    if (total >= POSITIONS) throw new RangeError(`a compact shard holds fewer than ${POSITIONS} postings`);
    const pairs = this.pairs;
    const keys = new Float64Array(total);
    for (let p = 0; p < total; p++) keys[p] = pairs[p]! * POSITIONS + p;
    keys.sort();
    const owner = new Uint32Array(total);
    const files = this.fileIds.length;
    for (let f = 0; f < files; f++) owner.fill(this.fileIds[f]!, this.fileStarts[f]!, f + 1 < files ? this.fileStarts[f + 1]! : total);
    const distinct: number[] = [];
    const boundaries: number[] = [];
    const ids = new Uint32Array(total);
    const masks = new Uint16Array(total);
    let previous = -1;
    for (let i = 0; i < total; i++) {
      const key = keys[i]!;
      const trigram = Math.floor(key / POSITIONS);
      const p = key - trigram * POSITIONS;
      if (trigram !== previous) {
        distinct.push(trigram);
        boundaries.push(i);
        previous = trigram;
      }
      ids[i] = owner[p]!;
      masks[i] = this.pairMasks[p]!;
    }
    boundaries.push(total);
    const out = encodeShard(base, span, Uint32Array.from(distinct), Uint32Array.from(boundaries), ids, masks);
    this.pairCount = 0;
    this.fileIds = [];
    this.fileStarts = [];
    if (this.pairs.length > 1 << 20) this.shrinkPairs();
    return out;
  }

  /** Frees the dense counter (64 MiB) once the builder's last shard is done. */
  release(): void {
    this.counts = undefined;
    this.ids = undefined;
    this.idMasks = undefined;
    this.shrinkPairs();
  }

  private shrinkPairs(): void {
    this.pairs = new Uint32Array(1 << 16);
    this.pairMasks = new Uint16Array(1 << 16);
  }
}

/**
 * A shard's bytes from its lists: trigram i (ascending) lists `ids[starts[i] .. starts[i + 1])`, ascending, local
 * to `base`, each with its GramMask `masks[p]` (./postings.ts has the layout). Exact varint sizes are computed
 * first, so the shard is written once into a buffer of its final size.
 */
export function encodeShard(
  base: number,
  span: number,
  trigrams: Uint32Array,
  starts: Uint32Array,
  ids: Uint32Array,
  masks: Uint16Array,
): Uint8Array {
  const n = trigrams.length;
  const offsets = new Uint32Array(n + 1);
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    offsets[i] = bytes;
    let previous = -1;
    for (let p = starts[i]!; p < starts[i + 1]!; p++) {
      const gap = ids[p]! - previous - 1;
      previous = ids[p]!;
      bytes += MASK_BYTES + (gap < 0x80 ? 1 : gap < 0x4000 ? 2 : gap < 0x200000 ? 3 : gap < 0x10000000 ? 4 : 5);
    }
  }
  offsets[n] = bytes;
  const out = new Uint8Array(shardByteLength(n, bytes));
  let w = writeShardHead(out, { base, span, trigrams, offsets, postingsBytes: bytes });
  for (let i = 0; i < n; i++) {
    let previous = -1;
    for (let p = starts[i]!; p < starts[i + 1]!; p++) {
      let gap = ids[p]! - previous - 1;
      previous = ids[p]!;
      while (gap >= 0x80) {
        out[w++] = (gap & 0x7f) | 0x80;
        gap >>>= 7;
      }
      out[w++] = gap;
      const mask = masks[p]!;
      out[w++] = mask & 0xff;
      out[w++] = mask >>> 8;
    }
  }
  return out;
}
