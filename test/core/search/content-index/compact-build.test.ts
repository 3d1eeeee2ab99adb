/**
 * The compact build (no dense 2^24 tables, for Workers' 128 MB isolates: core/search/content-index/trigrams.ts,
 * shard-builder.ts, index-builder.ts) gives what the dense one gives: the same trigrams and masks per file, the same
 * shard bytes, the same candidates from an index built and kept current either way.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createContentIndex, type ContentIndex, type IndexEntry } from '../../../../core/search/content-index/content-index.ts';
import { MemoryIndexStore } from '../../../../core/search/content-index/index-store.ts';
import { ShardBuilder } from '../../../../core/search/content-index/shard-builder.ts';
import { TrigramCollector } from '../../../../core/search/content-index/trigrams.ts';
import { seededRandom } from '../../text/generators.ts';

const encode = (text: string) => new TextEncoder().encode(text);
const same = (a: ArrayBufferView, b: ArrayBufferView) =>
  Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** Inputs that take every branch of `collect`: short, binary, the fold variants, non-ASCII, long and repetitive. */
function samples(): Uint8Array[] {
  const random = seededRandom(7);
  const words = ['widget', 'Widget', 'WIDGET', 'render', 'é', 'ſ', 'K', '_', ' ', '\n', 'ab', 'ẞ', '日本'];
  const prose = (n: number) => Array.from({ length: n }, () => words[Math.floor(random() * words.length)]).join('');
  const noise = new Uint8Array(300_000);
  for (let i = 0; i < noise.length; i++) noise[i] = 1 + Math.floor(random() * 255);
  return [
    new Uint8Array(0),
    encode('a'),
    encode('ab'),
    encode('abc'),
    encode('ſab'),
    new Uint8Array([0x61, 0, 0x62, 0x63]),
    new Uint8Array([0x61, 0x62, 0x63, 0x64, 0, 0x65]),
    encode('the Kelvin sign K and the long s ſ, folded'),
    encode(prose(200)),
    encode(prose(20_000)),
    encode('abcabcabc'.repeat(10_000)),
    noise,
  ];
}

describe('compact build', () => {
  it('TrigramCollector: the same trigrams, in the same order, with the same masks, file after file', () => {
    const dense = new TrigramCollector();
    const compact = new TrigramCollector(true);
    for (const bytes of [...samples(), ...samples().reverse()]) {
      const a = dense.collect(bytes);
      const b = compact.collect(bytes);
      expect(b).toEqual(a);
      // Compared as bytes: toEqual walks hundreds of thousands of elements one by one.
      expect(same(compact.trigrams.subarray(0, b.count), dense.trigrams.subarray(0, a.count))).toBe(true);
      expect(same(compact.masks.subarray(0, b.count), dense.masks.subarray(0, a.count))).toBe(true);
    }
  });

  it('ShardBuilder: the same shard bytes, shard after shard', () => {
    const random = seededRandom(11);
    const dense = new ShardBuilder();
    const compact = new ShardBuilder(false, true);
    for (let shard = 0; shard < 3; shard++) {
      const span = 50 + shard * 40;
      for (let local = 0; local < span; local++) {
        if (random() < 0.2) continue;
        const set = new Set<number>();
        const count = Math.floor(random() * 300);
        for (let i = 0; i < count; i++) set.add(random() < 0.5 ? Math.floor(random() * 64) : Math.floor(random() * (1 << 24)));
        const trigrams = Uint32Array.from(set);
        const masks = Uint16Array.from(trigrams, () => 1 + Math.floor(random() * 0xfffe));
        dense.add(local, trigrams, masks, trigrams.length);
        compact.add(local, trigrams, masks, trigrams.length);
      }
      expect(same(compact.finish(shard * 1000, span), dense.finish(shard * 1000, span))).toBe(true);
    }
  });

  const indexes: ContentIndex[] = [];
  afterEach(async () => {
    await Promise.all(indexes.splice(0).map((index) => index.close()));
  });

  it('an index built compact (several shards, a delta, a flush) gives the same candidates', async () => {
    const random = seededRandom(3);
    const files = new Map<string, { bytes: Uint8Array; version: string }>();
    let serial = 0;
    const write = (path: string, text: string) => files.set(path, { bytes: encode(text), version: `v${++serial}` });
    const vocabulary = Array.from({ length: 400 }, (_, i) => `term${i.toString(36)}`);
    const text = (n: number) => Array.from({ length: n }, () => vocabulary[Math.floor(random() * vocabulary.length)]).join(' ');
    // ~3 MiB of text: a compact build splits it into two shards of 2 MiB or less.
    for (let i = 0; i < 300; i++) write(`f${i}.txt`, text(1500));
    const entry = (path: string): IndexEntry => ({ path, absolutePath: `/ws/${path}`, size: files.get(path)!.bytes.length, version: files.get(path)!.version });
    const list = () => [...files.keys()].sort().map(entry);
    const open = (compact: boolean) => {
      const index = createContentIndex({ files: list, read: async (file) => files.get(file.path)?.bytes, store: new MemoryIndexStore(), batchMs: 1, deltaMaxFiles: 4, compact });
      indexes.push(index);
      return index;
    };
    const dense = open(false);
    const compact = open(true);
    await Promise.all([dense.settled(), compact.settled()]);
    expect(compact.footprint().shards).toBeGreaterThan(dense.footprint().shards);
    // Changes: the delta, flushed every 4 files into compact shards.
    const changed: IndexEntry[] = [];
    for (let i = 0; i < 10; i++) {
      write(`f${i * 7}.txt`, `${text(50)} uniquechange${i}`);
      changed.push(entry(`f${i * 7}.txt`));
    }
    for (const index of [dense, compact]) index.update(changed, []);
    await Promise.all([dense.settled(), compact.settled()]);
    for (const words of [['term1', 'term2'], ['uniquechange3'], ['term7 term8'], ['nothing here'], ['erm1']]) {
      for (const caseSensitive of [false, true]) {
        const plan = { required: [words], caseSensitive };
        const paths = async (index: ContentIndex) => (await index.candidates(plan, list())).map((file) => file.path);
        expect(await paths(compact), words.join()).toEqual(await paths(dense));
      }
    }
  });
});
