/**
 * Posting lists: ascending file ids, each with its GramMask (./trigrams.ts). An entry is the id's gap (the id
 * minus the previous one minus one, LEB128) then the mask's two bytes, low first, so the dense lists of common
 * trigrams cost about three bytes per file.
 */

import { CorruptIndexError } from './shard-format.ts';

/** The bytes after each gap: the GramMask. */
export const MASK_BYTES = 2;

/** A decoded list: `masks[i]` belongs to `ids[i]`. */
export interface Postings {
  readonly ids: Uint32Array;
  readonly masks: Uint16Array;
}

export const NO_POSTINGS: Postings = { ids: new Uint32Array(0), masks: new Uint16Array(0) };

/**
 * Decodes a list; ids are offset by `base` (the shard's first id) and must lie within `span`. Bytes that cannot be
 * a list — an id past the span, a mask without a start offset (zeroed blocks after a crash decode as exactly
 * that), a cut entry — are a CorruptIndexError: the index must not answer from them (it would miss files).
 */
export function decodePostings(bytes: Uint8Array, base: number, span: number): Postings {
  // Every entry is at least 1 + MASK_BYTES bytes.
  const capacity = Math.floor(bytes.length / (1 + MASK_BYTES));
  const ids = new Uint32Array(capacity);
  const masks = new Uint16Array(capacity);
  let count = 0;
  let previous = -1;
  let i = 0;
  while (i < bytes.length) {
    let byte = bytes[i++]!;
    let gap = byte & 0x7f;
    let shift = 7;
    while (byte & 0x80) {
      byte = bytes[i++]!;
      gap |= (byte & 0x7f) << shift;
      shift += 7;
    }
    previous = previous + (gap >>> 0) + 1;
    const loc = bytes[i]!;
    if (previous >= span || loc === 0 || i + MASK_BYTES > bytes.length || count === capacity) {
      throw new CorruptIndexError('postings damaged');
    }
    ids[count] = previous + base;
    masks[count++] = loc | (bytes[i + 1]! << 8);
    i += MASK_BYTES;
  }
  return { ids: ids.subarray(0, count), masks: masks.subarray(0, count) };
}

/** Where `value` is in the ascending `sorted`, or -1 (a binary search). */
export function indexOfSorted(sorted: Uint32Array, value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = sorted[mid]!;
    if (at === value) return mid;
    if (at < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Sorted intersection of two ascending lists. */
export function intersectSorted(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(Math.min(a.length, b.length));
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      out[n++] = x;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return out.subarray(0, n);
}

/** Sorted union of two ascending lists. */
export function unionSorted(a: Uint32Array, b: Uint32Array): Uint32Array {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out = new Uint32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      out[n++] = x;
      i++;
      j++;
    } else if (x < y) {
      out[n++] = x;
      i++;
    } else {
      out[n++] = y;
      j++;
    }
  }
  while (i < a.length) out[n++] = a[i++]!;
  while (j < b.length) out[n++] = b[j++]!;
  return out.subarray(0, n);
}

/** Sorted union of two lists with masks; an id in both (never, between shards) gets the OR of its masks. */
export function unionPostings(a: Postings, b: Postings): Postings {
  if (a.ids.length === 0) return b;
  if (b.ids.length === 0) return a;
  const ids = new Uint32Array(a.ids.length + b.ids.length);
  const masks = new Uint16Array(ids.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.ids.length || j < b.ids.length) {
    const x = i < a.ids.length ? a.ids[i]! : Infinity;
    const y = j < b.ids.length ? b.ids[j]! : Infinity;
    if (x <= y) {
      ids[n] = x;
      masks[n] = a.masks[i++]! | (x === y ? b.masks[j++]! : 0);
    } else {
      ids[n] = y;
      masks[n] = b.masks[j++]!;
    }
    n++;
  }
  return { ids: ids.subarray(0, n), masks: masks.subarray(0, n) };
}
