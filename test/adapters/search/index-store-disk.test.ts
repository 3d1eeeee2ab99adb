import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { defaultIndexDir, DiskIndexStore } from '../../../adapters/search/index-store-disk.ts';
import { createContentIndex, type IndexEntry } from '../../../core/search/content-index/content-index.ts';
import { tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

const fs = new NodeFileSystem();
let ws: TempWorkspace;
let cacheDir: string;

beforeEach(async () => {
  ws = await tempWorkspace({ 'a.txt': 'hello world\n', 'b.txt': 'other words\n', 'c/d.txt': 'deep hello\n' });
  cacheDir = await mkdtemp(join(tmpdir(), 'wsapi-index-disk-'));
});
afterEach(async () => {
  await ws.cleanup();
  await rm(cacheDir, { recursive: true, force: true });
});

describe('defaultIndexDir', () => {
  const hash = (root: string) => createHash('sha256').update(root).digest('hex').slice(0, 16);

  it('uses $XDG_CACHE_HOME, else ~/.cache, with a folder per root', () => {
    expect(defaultIndexDir('/srv/ws', { XDG_CACHE_HOME: '/var/cache/u' })).toBe(`/var/cache/u/workspace-api/${hash('/srv/ws')}`);
    expect(defaultIndexDir('/srv/ws', {})).toBe(join(homedir(), '.cache', 'workspace-api', hash('/srv/ws')));
    // An empty or relative XDG_CACHE_HOME is invalid per the XDG spec and ignored.
    expect(defaultIndexDir('/srv/ws', { XDG_CACHE_HOME: '' })).toBe(join(homedir(), '.cache', 'workspace-api', hash('/srv/ws')));
    expect(defaultIndexDir('/srv/ws', { XDG_CACHE_HOME: 'rel' })).toBe(join(homedir(), '.cache', 'workspace-api', hash('/srv/ws')));
    expect(defaultIndexDir('/srv/other', {})).not.toBe(defaultIndexDir('/srv/ws', {}));
  });

  it('refuses a folder inside the workspace', () => {
    expect(() => new DiskIndexStore({ root: ws.root, dir: join(ws.root, '.cache', 'idx') })).toThrow(/inside the workspace/);
    expect(() => new DiskIndexStore({ root: ws.root, dir: ws.root })).toThrow(/inside the workspace/);
    expect(() => new DiskIndexStore({ root: ws.root, env: { XDG_CACHE_HOME: ws.root } })).toThrow(/inside the workspace/);
    expect(new DiskIndexStore({ root: ws.root, env: { XDG_CACHE_HOME: cacheDir } }).dir.startsWith(cacheDir)).toBe(true);
  });
});

describe('DiskIndexStore', () => {
  it('stores the manifest and shards atomically, reads shards by range, lists, removes and clears', async () => {
    const store = new DiskIndexStore({ root: ws.root, dir: cacheDir });
    expect(await store.readManifest()).toBeUndefined();
    expect(await store.shardNames()).toEqual([]);
    await store.writeManifest(new TextEncoder().encode('{"one":1}'));
    await store.writeManifest(new TextEncoder().encode('{"two":2}'));
    expect(new TextDecoder().decode(await store.readManifest())).toBe('{"two":2}');
    await store.writeShard('s1', Uint8Array.from({ length: 100 }, (_, i) => i));
    await store.writeShard('s2', Uint8Array.of(9));
    expect((await store.shardNames()).sort()).toEqual(['s1', 's2']);
    // No temp file is left beside them.
    expect((await readdir(cacheDir)).sort()).toEqual(['manifest.json', 'shards']);
    expect((await readdir(join(cacheDir, 'shards'))).sort()).toEqual(['s1.shard', 's2.shard']);
    const source = await store.openShard('s1');
    expect(source.size).toBe(100);
    expect([...(await source.read(10, 5))]).toEqual([10, 11, 12, 13, 14]);
    expect([...(await source.read(98, 10))]).toEqual([98, 99]);
    await source.close();
    await expect(store.openShard('nope')).rejects.toThrow();
    expect(() => store.shardPath('../escape')).toThrow(/bad shard name/);
    await store.removeShard('s2');
    expect(await store.shardNames()).toEqual(['s1']);
    await store.clear();
    expect(await store.readManifest()).toBeUndefined();
    expect(await store.shardNames()).toEqual([]);
  });
});

describe('the index on disk', () => {
  async function entries(): Promise<IndexEntry[]> {
    const out: IndexEntry[] = [];
    for (const path of ['a.txt', 'b.txt', 'c/d.txt']) {
      const absolutePath = join(ws.root, path);
      const stat = await fs.stat(absolutePath).catch(() => undefined);
      if (stat) out.push({ path, absolutePath, size: stat.size, version: stat.version });
    }
    return out;
  }

  async function openIndex(list: IndexEntry[], reads: string[]) {
    const index = createContentIndex({
      files: () => list,
      read: async (entry) => {
        reads.push(entry.path);
        return fs.read(entry.absolutePath).catch(() => undefined);
      },
      store: new DiskIndexStore({ root: ws.root, dir: cacheDir }),
      batchMs: 1,
    });
    await index.settled();
    return index;
  }
  const paths = (found: IndexEntry[]) => found.map((entry) => entry.path);

  it('restarts warm: only a file changed on disk meanwhile is read again', async () => {
    let list = await entries();
    const reads: string[] = [];
    const first = await openIndex(list, reads);
    expect(reads.sort()).toEqual(['a.txt', 'b.txt', 'c/d.txt']);
    await first.close();
    await writeFile(join(ws.root, 'b.txt'), 'now it says hello\n');
    list = await entries();
    reads.length = 0;
    const second = await openIndex(list, reads);
    expect(reads).toEqual(['b.txt']);
    expect(paths(await second.candidates({ required: [['hello']], caseSensitive: false }, list))).toEqual(['a.txt', 'b.txt', 'c/d.txt']);
    expect(paths(await second.candidates({ required: [['other']], caseSensitive: false }, list))).toEqual([]);
    await second.close();
    // Closing wrote the manifest with b.txt's new version: a third start reads nothing.
    reads.length = 0;
    await (await openIndex(list, reads)).close();
    expect(reads).toEqual([]);
  });

  it('a truncated shard file or a garbled manifest is discarded and rebuilt', async () => {
    const list = await entries();
    const reads: string[] = [];
    await (await openIndex(list, reads)).close();
    const [shard] = await readdir(join(cacheDir, 'shards'));
    await truncate(join(cacheDir, 'shards', shard!), 30);
    reads.length = 0;
    const rebuilt = await openIndex(list, reads);
    expect(reads.sort()).toEqual(['a.txt', 'b.txt', 'c/d.txt']);
    expect(paths(await rebuilt.candidates({ required: [['deep']], caseSensitive: true }, list))).toEqual(['c/d.txt']);
    await rebuilt.close();
    expect(await readdir(join(cacheDir, 'shards'))).not.toContain(shard);

    const manifest = await readFile(join(cacheDir, 'manifest.json'));
    await writeFile(join(cacheDir, 'manifest.json'), manifest.subarray(0, manifest.length - 3));
    reads.length = 0;
    await (await openIndex(list, reads)).close();
    expect(reads.sort()).toEqual(['a.txt', 'b.txt', 'c/d.txt']);
  });
});
