/**
 * Posting lists: ascending file ids, stored as varint gaps (each id minus the previous minus one, LEB128), so
 * the dense lists of common trigrams cost about a byte per file.
 */

/** Decodes a list; ids are offset by `base` (the shard's first id). */
export function decodePostings(bytes: Uint8Array, base: number): Uint32Array {
  const ids = new Uint32Array(bytes.length);
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
    ids[count++] = previous + base;
  }
  return ids.subarray(0, count);
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
