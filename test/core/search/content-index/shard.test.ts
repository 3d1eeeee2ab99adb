import { describe, expect, it } from 'vitest';
import { bytesSource } from '../../../../core/search/content-index/byte-source.ts';
import { decodePostings, intersectSorted, unionSorted } from '../../../../core/search/content-index/postings.ts';
import { ShardBuilder } from '../../../../core/search/content-index/shard-builder.ts';
import { CorruptIndexError } from '../../../../core/search/content-index/shard-format.ts';
import { Shard } from '../../../../core/search/content-index/shard.ts';
import { seededRandom } from '../../text/generators.ts';

const add = (builder: ShardBuilder, id: number, trigrams: Uint32Array) =>
  builder.add(id, trigrams, Uint16Array.from(trigrams, (t) => 1 | ((t * 7) & 0xfffe)), trigrams.length);

/**
 * Builds a shard of random trigram sets and returns it with the truth: trigram → ascending global ids, and
 * (trigram, id) → its mask (here a function of both).
 */
async function randomShard(seed: number, base: number, span: number) {
  const random = seededRandom(seed);
  const truth = new Map<number, number[]>();
  const maskTruth = new Map<string, number>();
  const builder = new ShardBuilder();
  for (let local = 0; local < span; local++) {
    if (random() < 0.2) continue; // ids without a file (tombstones, skipped files) leave gaps
    const set = new Set<number>();
    const count = Math.floor(random() * 40);
    for (let i = 0; i < count; i++) set.add(random() < 0.5 ? Math.floor(random() * 64) : Math.floor(random() * (1 << 24)));
    const trigrams = Uint32Array.from([...set].sort(() => random() - 0.5));
    const masks = Uint16Array.from(trigrams, () => (1 + Math.floor(random() * 255)) | (Math.floor(random() * 256) << 8)); // a start offset always
    builder.add(local, trigrams, masks, trigrams.length);
    trigrams.forEach((t, i) => {
      if (!truth.has(t)) truth.set(t, []);
      truth.get(t)!.push(base + local);
      maskTruth.set(`${t}/${base + local}`, masks[i]!);
    });
  }
  const bytes = builder.finish(base, span);
  return { bytes, truth, maskTruth, shard: await Shard.open('s', bytesSource(bytes)) };
}

describe('shards', () => {
  it('round-trip: every trigram lists exactly the files that had it, in id order, each with its mask', async () => {
    for (const [seed, base, span] of [[1, 0, 50], [2, 1000, 700], [3, 4_000_000, 3000]] as const) {
      const { shard, truth, maskTruth } = await randomShard(seed, base, span);
      expect(shard.base).toBe(base);
      expect(shard.span).toBe(span);
      expect(shard.trigramCount).toBe(truth.size);
      const got = new Map<number, number[]>();
      const gotMasks = new Map<string, number>();
      for (const t of truth.keys()) {
        const list = await shard.postings(t);
        got.set(t, [...list.ids]);
        list.ids.forEach((id, i) => gotMasks.set(`${t}/${id}`, list.masks[i]!));
      }
      expect(got).toEqual(truth);
      expect(gotMasks).toEqual(maskTruth);
      expect([...(await shard.postings(1 << 24 - 1)).ids]).toEqual(truth.get(1 << 24 - 1) ?? []);
    }
  });

  it('an empty shard has no lists', async () => {
    const builder = new ShardBuilder();
    const shard = await Shard.open('e', bytesSource(builder.finish(5, 3)));
    expect(shard.trigramCount).toBe(0);
    expect([...(await shard.postings(123)).ids]).toEqual([]);
  });

  it('postings survive gaps that need every varint width', async () => {
    const builder = new ShardBuilder();
    const ids = [0, 1, 200, 20_000, 3_000_000, 300_000_000];
    for (const id of ids) builder.add(id, Uint32Array.of(42), Uint16Array.of((id & 0xff00) | 1), 1);
    const shard = await Shard.open('g', bytesSource(builder.finish(7, ids.at(-1)! + 1)));
    const list = await shard.postings(42);
    expect([...list.ids]).toEqual(ids.map((id) => id + 7));
    expect([...list.masks]).toEqual(ids.map((id) => (id & 0xff00) | 1));
  });

  it('refuses damaged or foreign bytes with CorruptIndexError', async () => {
    const { bytes } = await randomShard(4, 0, 100);
    const cases: Uint8Array[] = [
      new Uint8Array(10),
      bytes.subarray(0, bytes.length - 1),
      (() => { const b = bytes.slice(); b[0] = 0; return b; })(), // magic
      (() => { const b = bytes.slice(); b[4] = 9; return b; })(), // format
      (() => { const b = bytes.slice(); b[24] = 0xff; b[25] = 0xff; b[26] = 0xff; return b; })(), // first trigram > second
    ];
    for (const damaged of cases) await expect(Shard.open('x', bytesSource(damaged))).rejects.toBeInstanceOf(CorruptIndexError);
  });

  it('a list that cannot be one is a CorruptIndexError: an id past the span, a mask without an offset, a cut entry', () => {
    expect(() => decodePostings(Uint8Array.of(0, 1, 0, 5, 1, 0), 0, 6)).toThrow(CorruptIndexError); // ids 0, 6
    expect(() => decodePostings(Uint8Array.of(0, 0, 0), 0, 6)).toThrow(CorruptIndexError); // zeroed
    expect(() => decodePostings(Uint8Array.of(0, 1), 0, 6)).toThrow(CorruptIndexError);
    expect(() => decodePostings(Uint8Array.of(0x80, 0x80, 0x80, 1, 0), 0, 6)).toThrow(CorruptIndexError);
    expect([...decodePostings(Uint8Array.of(0, 1, 0, 4, 1, 0), 0, 6).ids]).toEqual([0, 5]);
  });

  it('sorted set operations', () => {
    const a = Uint32Array.of(1, 3, 5, 7);
    const b = Uint32Array.of(3, 4, 7, 9);
    expect([...intersectSorted(a, b)]).toEqual([3, 7]);
    expect([...unionSorted(a, b)]).toEqual([1, 3, 4, 5, 7, 9]);
    const decoded = decodePostings(Uint8Array.of(0, 1, 0, 0, 0x34, 0x12, 5, 0xff, 0xff), 10, 8);
    expect([...decoded.ids]).toEqual([10, 11, 17]);
    expect([...decoded.masks]).toEqual([1, 0x1234, 0xffff]);
  });
});

describe('the postings cache', () => {
  it('serves a list again without reading, never holds a huge list, and forgets a closed shard', async () => {
    const { PostingsCache } = await import('../../../../core/search/content-index/postings-cache.ts');
    const cache = new PostingsCache(200);
    const builder = new ShardBuilder();
    for (let id = 0; id < 60; id++) add(builder, id, id < 30 ? Uint32Array.of(1, 2) : Uint32Array.of(2, 3));
    const bytes = builder.finish(0, 60);
    let reads = 0;
    const source = bytesSource(bytes);
    const counted = { ...source, read: (offset: number, length: number) => (reads++, source.read(offset, length)) };
    const shard = await Shard.open('c', counted, cache);
    reads = 0;
    const first = await shard.postings(1);
    expect(first.ids.length).toBe(30);
    expect(await shard.postings(1)).toBe(first);
    expect(reads).toBe(1);
    await shard.postings(2); // 60 ids: more than a quarter of the budget, not kept
    await shard.postings(2);
    expect(reads).toBe(3);
    await shard.postings(3); // 30 ids: 60 held
    expect(cache.heldIds).toBe(60);
    await shard.close();
    expect(cache.heldIds).toBe(0);
  });

  it('drops the least recently used list past its budget', async () => {
    const { PostingsCache } = await import('../../../../core/search/content-index/postings-cache.ts');
    const cache = new PostingsCache(10);
    const list = () => ({ ids: new Uint32Array(2), masks: new Uint16Array(2) });
    const a = list();
    cache.set('a', a);
    cache.set('b', list());
    cache.set('c', list());
    cache.set('d', list());
    expect(cache.get('a')).toBe(a); // a is now the most recent
    cache.set('e', list());
    cache.set('f', list()); // 12 ids: b (the oldest) goes
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(a);
    expect(cache.heldIds).toBe(10);
  });
});
