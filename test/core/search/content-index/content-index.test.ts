import { afterEach, describe, expect, it } from 'vitest';
import { createContentIndex, type ContentIndex, type ContentIndexOptions, type IndexEntry } from '../../../../core/search/content-index/content-index.ts';
import { createInProcessBuilder } from '../../../../core/search/content-index/index-builder.ts';
import { MemoryIndexStore, type IndexStore } from '../../../../core/search/content-index/index-store.ts';
import { seededRandom } from '../../text/generators.ts';

/** A workspace in memory: path → text or bytes, with versions bumped on every write, and a read counter. */
class Files {
  private readonly content = new Map<string, Uint8Array>();
  private readonly versions = new Map<string, number>();
  private serial = 0;
  reads: string[] = [];

  constructor(seed: Record<string, string | Uint8Array> = {}) {
    for (const [path, value] of Object.entries(seed)) this.write(path, value);
  }
  write(path: string, value: string | Uint8Array): IndexEntry {
    this.content.set(path, typeof value === 'string' ? new TextEncoder().encode(value) : value);
    this.versions.set(path, ++this.serial);
    return this.entry(path);
  }
  remove(path: string): void {
    this.content.delete(path);
    this.versions.delete(path);
  }
  entry(path: string): IndexEntry {
    return { path, absolutePath: `/ws/${path}`, size: this.content.get(path)!.length, version: `v${this.versions.get(path)}` };
  }
  list = (): IndexEntry[] => [...this.content.keys()].sort().map((path) => this.entry(path));
  read = async (entry: IndexEntry): Promise<Uint8Array | undefined> => {
    this.reads.push(entry.path);
    return this.content.get(entry.path);
  };
}

const open: ContentIndex[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((index) => index.close()));
});

async function ready(files: Files, store: IndexStore = new MemoryIndexStore(), extra: Partial<ContentIndexOptions> = {}) {
  const index = createContentIndex({ files: files.list, read: files.read, store, batchMs: 1, ...extra });
  open.push(index);
  await index.settled();
  return index;
}

const find = async (index: ContentIndex, files: Files, required: string[][], caseSensitive = false) =>
  (await index.candidates({ required, caseSensitive }, files.list())).map((entry) => entry.path);

describe('content index: candidates', () => {
  const seed = {
    'a.ts': 'export function parseWidget() {}\n',
    'b.ts': 'const widget = makeWidget();\n',
    'c.md': '# Notes\nnothing to see\n',
    'd.bin': new Uint8Array([0x77, 0x69, 0x64, 0x67, 0x65, 0x74, 0, 1]), // "widget" then NUL
  };

  it('narrows to the files holding every trigram; NUL files are never candidates', async () => {
    const files = new Files(seed);
    const index = await ready(files);
    expect(index.status()).toEqual({ state: 'ready', progress: 1, indexedFiles: 4, pending: 0, readyAt: expect.any(Number), lastCaughtUpAt: expect.any(Number) });
    expect(await find(index, files, [['widget']])).toEqual(['a.ts', 'b.ts']);
    expect(await find(index, files, [['parseWidget']], true)).toEqual(['a.ts']);
    expect(await find(index, files, [['nothing']])).toEqual(['c.md']);
    expect(await find(index, files, [['absent text']])).toEqual([]);
  });

  it('AND of ORs: a clause is satisfied by any alternative', async () => {
    const files = new Files(seed);
    const index = await ready(files);
    expect(await find(index, files, [['parse', 'notes'], ['widget', 'nothing']])).toEqual(['a.ts', 'c.md']);
    expect(await find(index, files, [['make'], ['const']])).toEqual(['b.ts']);
  });

  it('no restriction: required [] or a literal under three bytes gives every text file', async () => {
    const files = new Files(seed);
    const index = await ready(files);
    expect(await find(index, files, [])).toEqual(['a.ts', 'b.ts', 'c.md']);
    expect(await find(index, files, [['wi']])).toEqual(['a.ts', 'b.ts', 'c.md']);
    expect(await find(index, files, [['widget', 'x']])).toEqual(['a.ts', 'b.ts', 'c.md']);
    // a restricting clause still restricts next to one that does not
    expect(await find(index, files, [['x'], ['nothing']])).toEqual(['c.md']);
  });

  it('files over 1 MiB are never candidates; files it does not know are', async () => {
    const files = new Files({ ...seed, 'big.txt': 'widget'.repeat(200_000) });
    const index = await ready(files);
    expect(files.reads).not.toContain('big.txt');
    expect(await find(index, files, [['widget']])).toEqual(['a.ts', 'b.ts']);
    const stranger: IndexEntry = { path: 'new.ts', absolutePath: '/ws/new.ts', size: 10, version: 'x' };
    const universe = [...files.list(), stranger];
    expect((await index.candidates({ required: [['nothing']], caseSensitive: false }, universe)).map((e) => e.path)).toEqual(['c.md', 'new.ts']);
  });

  it('a universe entry whose version differs from the indexed one is a candidate until re-indexed', async () => {
    const files = new Files(seed);
    const index = await ready(files);
    const changed = { ...files.entry('c.md'), version: 'v999' };
    const universe = files.list().map((entry) => (entry.path === 'c.md' ? changed : entry));
    expect((await index.candidates({ required: [['widget']], caseSensitive: true }, universe)).map((e) => e.path)).toEqual(['a.ts', 'b.ts', 'c.md']);
  });

  it('case-insensitive queries keep files with a Kelvin sign or long s; case-sensitive ones need not', async () => {
    const files = new Files({ 'kelvin.txt': 'the \u212Aernel\n', 'longs.txt': 'ſome text\n', 'plain.txt': 'nothing\n' });
    const index = await ready(files);
    expect(await find(index, files, [['kernel']])).toEqual(['kelvin.txt', 'longs.txt']);
    expect(await find(index, files, [['kernel']], true)).toEqual([]);
  });

  it('case-insensitive: a phrase across a letter whose cases differ in UTF-8 length is still found', async () => {
    // ß is 2 bytes, ẞ 3: "xyz" and "abc" are a byte further apart in the second file.
    const files = new Files({ 'small.txt': '..xyzßabc..\n', 'capital.txt': '..XYZẞABC..\n', 'apart.txt': 'xyz..abc\n' });
    const index = await ready(files);
    // Across the non-ASCII letter nothing ties the two runs' offsets: apart.txt stays a candidate (verified away).
    expect(await find(index, files, [['xyzßabc']])).toEqual(['apart.txt', 'capital.txt', 'small.txt']);
    expect(await find(index, files, [['XYZẞABC']])).toEqual(['apart.txt', 'capital.txt', 'small.txt']);
    expect(await find(index, files, [['xyzßabc']], true)).toEqual(['small.txt']);
    expect(await find(index, files, [['xyz..abc']])).toEqual(['apart.txt']);
  });
});

describe('content index: soundness (property)', () => {
  // Small alphabets so trigrams collide a lot; upper case, non-ASCII letters, the fold variants, case pairs of
  // different UTF-8 lengths (ß 2 bytes, ẞ 3: offsets across them differ between the cases) and newlines.
  const PIECES = ['a', 'b', 'A', 'B', 'k', 'K', '\u212A', 's', 'S', 'ſ', 'é', 'É', 'ß', 'ẞ', '_', ' ', '\n', 'ab', 'ba'];
  const text = (random: () => number, max: number) => {
    let out = '';
    const n = Math.floor(random() * max);
    for (let i = 0; i < n; i++) out += PIECES[Math.floor(random() * PIECES.length)];
    return out;
  };
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const contains = (haystack: string, needle: string, caseSensitive: boolean) =>
    caseSensitive ? haystack.includes(needle) : new RegExp(escape(needle), 'iu').test(haystack);

  it('every file containing a literal is a candidate, either case mode, after updates too', async () => {
    const random = seededRandom(20260701);
    for (let round = 0; round < 40; round++) {
      const seed: Record<string, string> = {};
      for (let f = 0; f < 12; f++) seed[`f${f}.txt`] = text(random, 60);
      const files = new Files(seed);
      // Every fourth round flushes the delta into shards at once (so merged shards' masks are exercised too).
      const index = await ready(files, undefined, round % 4 === 3 ? { deltaMaxFiles: 1 } : {});
      // Some rounds change, add and remove files, so the delta and tombstones are exercised.
      if (round % 2 === 1) {
        const changed = [files.write('f0.txt', text(random, 60)), files.write('new.txt', text(random, 60))];
        files.remove('f1.txt');
        index.update(changed, ['f1.txt']);
        await index.settled();
      }
      for (let q = 0; q < 25; q++) {
        const bodies = Object.fromEntries(files.list().map((e) => [e.path, seed[e.path] ?? '']));
        for (const entry of files.list()) bodies[entry.path] = new TextDecoder().decode((await files.read(entry))!);
        // Literals: substrings of a file (so they occur) or random text (so they mostly do not).
        const source = bodies[`f${Math.floor(random() * 12)}.txt`] ?? '';
        const start = Math.floor(random() * source.length);
        const literal = random() < 0.6 ? source.slice(start, start + 3 + Math.floor(random() * 6)) : text(random, 8);
        const caseSensitive = random() < 0.5;
        const got = await find(index, files, [[literal]], caseSensitive);
        const expected = files.list().map((e) => e.path).filter((path) => contains(bodies[path]!, literal, caseSensitive));
        for (const path of expected) expect(got, `${JSON.stringify(literal)} cs=${caseSensitive} in ${path}`).toContain(path);
      }
      await index.close();
    }
  });
});

describe('content index: incremental updates', () => {
  it('a changed file is found by its new content, not its old; a removed file is gone', async () => {
    const files = new Files({ 'a.txt': 'alpha beta\n', 'b.txt': 'gamma delta\n' });
    const index = await ready(files);
    const changed = files.write('a.txt', 'epsilon zeta\n');
    index.update([changed], []);
    expect(index.status().pending).toBe(1);
    await index.settled();
    expect(index.status().pending).toBe(0);
    expect(await find(index, files, [['alpha']])).toEqual([]);
    expect(await find(index, files, [['epsilon']])).toEqual(['a.txt']);
    files.remove('b.txt');
    index.update([], ['b.txt']);
    await index.settled();
    expect(index.status().indexedFiles).toBe(1);
    expect(await find(index, files, [['gamma']])).toEqual([]);
    expect(index.footprint().deltaFiles).toBe(1);
  });

  it('a file handed over at the version already indexed is not read again', async () => {
    const files = new Files({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n' });
    const index = await ready(files);
    files.reads = [];
    index.update(files.list(), []);
    expect(index.status().pending).toBe(0);
    await index.settled();
    expect(files.reads).toEqual([]);
  });

  it('resync: re-indexes what differs from the list and forgets what it no longer lists', async () => {
    const files = new Files({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n', 'c.txt': 'gamma\n' });
    const index = await ready(files);
    files.write('b.txt', 'beta changed\n');
    files.remove('c.txt');
    files.write('d.txt', 'delta\n');
    files.reads = [];
    index.resync();
    await index.settled();
    expect(files.reads.sort()).toEqual(['b.txt', 'd.txt']);
    expect(index.status().indexedFiles).toBe(3);
    expect(await find(index, files, [['changed']])).toEqual(['b.txt']);
    // c.txt is gone from the index: a universe still holding it (at its old version) gets it only as unknown.
    expect(await find(index, files, [['gamma']])).toEqual([]);
  });

  it('a resync asked for during the first pass happens when it ends', async () => {
    const files = new Files({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n' });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const building = new Promise<void>((resolve) => (started = resolve));
    const inner = createInProcessBuilder(files.read);
    const index = createContentIndex({
      files: files.list, read: files.read, store: new MemoryIndexStore(), batchMs: 1,
      builder: {
        build: async (job, progress) => {
          started();
          await gate;
          return inner.build(job, progress);
        },
        close: async () => {},
      },
    });
    open.push(index);
    await building; // the first pass has listed both files and is building
    files.remove('b.txt'); // and no event says so, only a resync
    index.resync();
    release();
    await index.settled();
    expect(index.status().indexedFiles).toBe(1);
  });

  it('the delta becomes a shard when it grows, and stays correct', async () => {
    const seed: Record<string, string> = {};
    for (let i = 0; i < 10; i++) seed[`s${i}.txt`] = `seed file ${i}\n`;
    const files = new Files(seed);
    const store = new MemoryIndexStore();
    const index = await ready(files, store);
    const shardsBefore = index.footprint().shards;
    // 2500 changes in batches below the bulk threshold: the delta fills and is flushed.
    for (let batch = 0; batch < 5; batch++) {
      const changed: IndexEntry[] = [];
      for (let i = 0; i < 500; i++) changed.push(files.write(`n${batch}-${i}.txt`, `token_${batch}_${i} common\n`));
      index.update(changed, []);
      await index.settled();
    }
    expect(index.footprint().shards).toBe(shardsBefore + 1);
    expect(index.footprint().deltaFiles).toBe(500);
    expect(await find(index, files, [['token_3_499']], true)).toEqual(['n3-499.txt']);
    expect(await find(index, files, [['token_4_7 ']], true)).toEqual(['n4-7.txt']);
    expect((await find(index, files, [['common']])).length).toBe(2500);
  });

  it('small shards from delta flushes are merged, keeping only what is live', async () => {
    const files = new Files({ 'keep.txt': 'kept_forever\n' });
    const store = new MemoryIndexStore();
    const index = await ready(files, store, { deltaMaxFiles: 10 });
    let most = 0;
    for (let batch = 0; batch < 12; batch++) {
      const changed: IndexEntry[] = [];
      for (let i = 0; i < 10; i++) changed.push(files.write(`b${batch}-${i}.txt`, `word_${batch}_${i}\n`));
      // Rewriting an earlier batch's file leaves a dead id in its shard.
      if (batch > 0) changed.push(files.write(`b${batch - 1}-0.txt`, `rewritten_${batch}\n`));
      index.update(changed, []);
      await index.settled();
      most = Math.max(most, index.footprint().shards);
    }
    expect(most).toBeLessThanOrEqual(9);
    expect(index.footprint().shards).toBeLessThan(8);
    expect((await store.shardNames()).length).toBe(index.footprint().shards);
    expect(await find(index, files, [['kept_forever']])).toEqual(['keep.txt']);
    expect(await find(index, files, [['word_5_3']])).toEqual(['b5-3.txt']);
    expect(await find(index, files, [['word_5_0']])).toEqual([]);
    expect(await find(index, files, [['rewritten_6']])).toEqual(['b5-0.txt']);
    expect((await find(index, files, [['word_']])).length).toBe(12 * 10 - 11);
    // And the merged index survives a restart.
    await index.close();
    files.reads = [];
    const again = await ready(files, store);
    expect(files.reads).toEqual([]);
    expect(await find(again, files, [['word_11_9']])).toEqual(['b11-9.txt']);
  });

  it('many changes at once are built as new shards; shards nothing refers to are dropped', async () => {
    const seed: Record<string, string> = {};
    for (let i = 0; i < 3000; i++) seed[`f${i}.txt`] = `first_${i}\n`;
    const files = new Files(seed);
    const store = new MemoryIndexStore();
    const index = await ready(files, store);
    expect(await store.shardNames()).toHaveLength(1);
    const changed = files.list().map((entry) => files.write(entry.path, `second_${entry.path}\n`));
    index.update(changed, []);
    await index.settled();
    expect(await store.shardNames()).toHaveLength(1); // the old one held only dead ids
    expect(await find(index, files, [['first_12']])).toEqual([]);
    // f1212.txt ("second_f1212.txt") holds every trigram of "second_f12.txt" too, but "f12" and "12." start
    // 2 bytes further apart than in the phrase: its masks rule it out.
    expect(await find(index, files, [['second_f12.txt']])).toEqual(['f12.txt']);
    expect(await find(index, files, [['second_f1', '.txt']])).toHaveLength(3000);
  });

  it('reports building progress, then ready', async () => {
    const seed: Record<string, string> = {};
    for (let i = 0; i < 50; i++) seed[`f${i}.txt`] = `x${i}\n`;
    const files = new Files(seed);
    const seen: string[] = [];
    const index = await ready(files, new MemoryIndexStore(), { onProgress: (status) => seen.push(`${status.state}:${status.progress}`) });
    expect(seen.at(-1)).toBe('ready:1');
    expect(seen).toContain('building:1');
    expect(index.status().state).toBe('ready');
  });
});

describe('content index: failures stay sound', () => {
  it('a failed first pass leaves it building, answering with every file, and says why', async () => {
    const files = new Files({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n' });
    const index = await ready(files, new MemoryIndexStore(), {
      builder: { build: async () => { throw new Error('worker died'); }, close: async () => {} },
    });
    expect(index.status()).toEqual({ state: 'building', progress: 0, indexedFiles: 0, pending: 0, error: 'worker died' });
    expect(await find(index, files, [['alpha']])).toEqual(['a.txt', 'b.txt']);
  });

  it('a store that fails to take a shard keeps the changed files candidates', async () => {
    const files = new Files({ 'a.txt': 'alpha\n' });
    const store = new MemoryIndexStore();
    const index = await ready(files, store, { deltaMaxFiles: 1 });
    store.writeShard = async () => { throw new Error('disk full'); };
    const changed = files.write('a.txt', 'gamma\n');
    index.update([changed], []);
    await index.settled();
    expect(index.status().error).toBe('disk full');
    expect(await find(index, files, [['gamma']])).toEqual(['a.txt']);
    expect(await find(index, files, [['alpha']])).toEqual([]);
  });
});

describe('content index: persistence', () => {
  it('a warm start re-reads only the files whose version differs, and drops removed ones', async () => {
    const seed: Record<string, string> = {};
    for (let i = 0; i < 20; i++) seed[`f${i}.txt`] = `content_${i}\n`;
    const files = new Files(seed);
    const store = new MemoryIndexStore();
    const first = await ready(files, store);
    expect(files.reads).toHaveLength(20);
    await first.close();

    files.write('f3.txt', 'rewritten three\n');
    files.write('added.txt', 'brand new\n');
    files.remove('f4.txt');
    files.reads = [];
    const second = await ready(files, store);
    expect(files.reads.sort()).toEqual(['added.txt', 'f3.txt']);
    expect(second.status().indexedFiles).toBe(20);
    expect(await find(second, files, [['content_3']])).toEqual([]);
    expect(await find(second, files, [['rewritten']])).toEqual(['f3.txt']);
    expect(await find(second, files, [['content_4']])).toEqual([]);
    expect(await find(second, files, [['content_15']])).toEqual(['f15.txt']);
    expect(await find(second, files, [['brand new']])).toEqual(['added.txt']);
  });

  it('a corrupt or foreign-format manifest is discarded and the index rebuilt', async () => {
    const files = new Files({ 'a.txt': 'hello world\n', 'b.txt': 'other\n' });
    const head = (nextId: number, shards: string[]) => JSON.stringify({ format: 2, nextId, shards, rows: 1 });
    const table = (flags: string) => ['["paths",["a.txt"]]', '["sizes",[12]]', '["versions",["v1"]]', '["ids",[0]]', `["flags",[${flags}]]`].join('\n');
    for (const manifest of [
      '{not json\n',
      '[]\n',
      '{"format":999,"nextId":2,"shards":[],"rows":0}\n', // foreign format
      `${head(1, ['gone'])}\n${table('0')}\n`, // a shard that is not there
      `${head(1, [])}\n${table('0')}\n`, // an indexed file no shard holds
      `${head(1, [])}\n${table('"x"')}\n`, // a bad value
      `${head(0, [])}\n${table('1')}\n`, // an id out of range
      `${head(1, [])}\n${table('1')}`, // cut short (no final newline)
      `${head(1, [])}\n${table('1').split('\n').slice(0, 4).join('\n')}\n`, // a column missing
    ]) {
      const store = new MemoryIndexStore();
      await store.writeManifest(new TextEncoder().encode(manifest));
      await store.writeShard('orphan', new Uint8Array(40));
      files.reads = [];
      const index = await ready(files, store);
      expect(files.reads.sort()).toEqual(['a.txt', 'b.txt']);
      expect(await store.shardNames()).not.toContain('orphan');
      expect(await find(index, files, [['hello']])).toEqual(['a.txt']);
      await index.close();
    }
  });

  it('a shard whose postings are damaged (same size, zeroed) is dropped at the first query: its files stay candidates, then are re-read', async () => {
    const seed: Record<string, string> = {};
    for (let i = 0; i < 40; i++) seed[`f${i}.txt`] = `file number ${i} says hello\n`;
    const files = new Files(seed);
    const store = new MemoryIndexStore();
    await (await ready(files, store)).close();
    const [name] = await store.shardNames();
    const source = await store.openShard(name!);
    const bytes = await source.read(0, source.size);
    const trigrams = new DataView(bytes.buffer, bytes.byteOffset).getUint32(16, true);
    bytes.fill(0, 24 + 8 * trigrams + 4); // the postings, what a crash on a delayed-allocation file system leaves
    await store.writeShard(name!, bytes);
    files.reads = [];
    const index = await ready(files, store);
    expect(files.reads).toEqual([]); // the tables are sound: a warm start
    expect(await find(index, files, [['number 12 says']])).toHaveLength(40); // every file of the shard: sound
    expect(index.status().error).toMatch(/damaged/);
    await index.settled();
    expect(files.reads).toHaveLength(40);
    expect(await find(index, files, [['number 12 says']])).toEqual(['f12.txt']);
    expect(await store.shardNames()).not.toContain(name);
  });

  it('a damaged shard behind a good manifest is discarded and the index rebuilt', async () => {
    const files = new Files({ 'a.txt': 'hello world\n' });
    const store = new MemoryIndexStore();
    await (await ready(files, store)).close();
    const [name] = await store.shardNames();
    await store.writeShard(name!, new Uint8Array(64));
    files.reads = [];
    const index = await ready(files, store);
    expect(files.reads).toEqual(['a.txt']);
    expect(await find(index, files, [['hello']])).toEqual(['a.txt']);
  });
});
