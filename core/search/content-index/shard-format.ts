/**
 * One shard on storage: the posting lists of a range of file ids, in the layout zoekt and Code Search use — a
 * sorted trigram table with offsets (kept in memory: a binary search finds a list) and the lists themselves
 * (read from storage on demand, so they need not be resident).
 *
 * Layout, little-endian u32s: magic, format, base (first file id), span (ids covered), trigram count n,
 * postings bytes; then trigrams[n] ascending, offsets[n + 1] into the postings, then the postings.
 */
import type { ByteSource } from './byte-source.ts';

export const SHARD_MAGIC = 0x49545357; // "WSTI"
/** 2: postings carry GramMasks. */
export const SHARD_FORMAT = 2;
export const SHARD_HEADER_BYTES = 24;

export class CorruptIndexError extends Error {
  override readonly name = 'CorruptIndexError';
}

/** A shard's in-memory part. */
export interface ShardTables {
  readonly base: number;
  readonly span: number;
  readonly trigrams: Uint32Array;
  /** `offsets[i]..offsets[i + 1]` are trigram i's postings bytes, relative to `postingsAt`. */
  readonly offsets: Uint32Array;
  readonly postingsAt: number;
}

export function shardByteLength(trigramCount: number, postingsBytes: number): number {
  return SHARD_HEADER_BYTES + 8 * trigramCount + 4 + postingsBytes;
}

/** Writes the header and tables; the caller fills the postings from `postingsAt`. */
export function writeShardHead(
  out: Uint8Array,
  head: { base: number; span: number; trigrams: ArrayLike<number>; offsets: ArrayLike<number>; postingsBytes: number },
): number {
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const n = head.trigrams.length;
  view.setUint32(0, SHARD_MAGIC, true);
  view.setUint32(4, SHARD_FORMAT, true);
  view.setUint32(8, head.base, true);
  view.setUint32(12, head.span, true);
  view.setUint32(16, n, true);
  view.setUint32(20, head.postingsBytes, true);
  let at = SHARD_HEADER_BYTES;
  for (let i = 0; i < n; i++, at += 4) view.setUint32(at, head.trigrams[i]!, true);
  for (let i = 0; i <= n; i++, at += 4) view.setUint32(at, head.offsets[i]!, true);
  return at;
}

const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

function u32s(bytes: Uint8Array, count: number): Uint32Array {
  // The format is little-endian, like every platform we run on: a copy, not a conversion.
  if (LITTLE_ENDIAN) return new Uint32Array(bytes.slice(0, count * 4).buffer);
  const out = new Uint32Array(count);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < count; i++) out[i] = view.getUint32(i * 4, true);
  return out;
}

/** Reads and checks the header and tables (a damaged or foreign shard is a CorruptIndexError). */
export async function readShardTables(source: ByteSource): Promise<ShardTables> {
  if (source.size < SHARD_HEADER_BYTES + 4) throw new CorruptIndexError('shard too short');
  const head = await source.read(0, SHARD_HEADER_BYTES);
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (view.getUint32(0, true) !== SHARD_MAGIC) throw new CorruptIndexError('not a shard');
  if (view.getUint32(4, true) !== SHARD_FORMAT) throw new CorruptIndexError('shard format differs');
  const base = view.getUint32(8, true);
  const span = view.getUint32(12, true);
  const n = view.getUint32(16, true);
  const postingsBytes = view.getUint32(20, true);
  if (shardByteLength(n, postingsBytes) !== source.size) throw new CorruptIndexError('shard size mismatch');
  const tables = await source.read(SHARD_HEADER_BYTES, 8 * n + 4);
  const trigrams = u32s(tables.subarray(0, 4 * n), n);
  const offsets = u32s(tables.subarray(4 * n), n + 1);
  for (let i = 0; i < n; i++) {
    if ((i > 0 && trigrams[i]! <= trigrams[i - 1]!) || offsets[i + 1]! <= offsets[i]!) {
      throw new CorruptIndexError('shard tables out of order');
    }
  }
  if (offsets[0] !== 0 || offsets[n] !== postingsBytes) throw new CorruptIndexError('shard offsets mismatch');
  return { base, span, trigrams, offsets, postingsAt: SHARD_HEADER_BYTES + 8 * n + 4 };
}
