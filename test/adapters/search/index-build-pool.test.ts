import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { createIndexBuildPool } from '../../../adapters/search/index-build-pool.ts';
import { DiskIndexStore } from '../../../adapters/search/index-store-disk.ts';
import { createContentIndex, type ContentIndex, type IndexEntry } from '../../../core/search/content-index/content-index.ts';
import { MemoryIndexStore } from '../../../core/search/content-index/index-store.ts';
import { seededRandom } from '../../core/text/generators.ts';
import { tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

const fs = new NodeFileSystem();
const WORDS = ['alpha', 'Beta', 'gamma_delta', 'irq_domain', 'EXPORT', 'spin_lock', 'wid', 'get', 'é', '\u212Aelvin', 'x', '\n'];

let ws: TempWorkspace;
let cacheRoot: string;
let entries: IndexEntry[];

async function listEntries(root: string): Promise<IndexEntry[]> {
  const out: IndexEntry[] = [];
  for (const name of (await readdir(join(root, 'src'))).sort()) {
    const absolutePath = join(root, 'src', name);
    const stat = await fs.lstat(absolutePath);
    out.push({ path: `src/${name}`, absolutePath, size: stat.size, version: stat.version });
  }
  return out;
}

const read = async (entry: IndexEntry) => {
  try {
    return await fs.read(entry.absolutePath);
  } catch {
    return undefined;
  }
};

beforeAll(async () => {
  const random = seededRandom(99);
  const seed: Record<string, string | Uint8Array> = {};
  for (let i = 0; i < 240; i++) {
    let text = '';
    for (let w = Math.floor(random() * 200); w > 0; w--) text += WORDS[Math.floor(random() * WORDS.length)] + ' ';
    seed[`src/f${String(i).padStart(3, '0')}.txt`] = text;
  }
  seed['src/nul.bin'] = new Uint8Array([...new TextEncoder().encode('alpha beta'), 0, 1, 2]);
  seed['src/large.txt'] = 'alpha '.repeat(200_000);
  ws = await tempWorkspace(seed);
  // Listed as a file, then replaced by a link: the worker does not follow it (O_NOFOLLOW), so it stays a candidate.
  await writeFile(join(ws.root, 'outside.txt'), 'secret alpha');
  await symlink(join(ws.root, 'outside.txt'), join(ws.root, 'src', 'link.txt'));
  entries = await listEntries(ws.root);
  cacheRoot = await mkdtemp(join(tmpdir(), 'wsapi-index-cache-'));
});

afterAll(async () => {
  await ws.cleanup();
  await rm(cacheRoot, { recursive: true, force: true });
});

async function built(index: ContentIndex): Promise<ContentIndex> {
  await index.settled();
  return index;
}

const LITERALS = ['alpha', 'ALPHA', 'irq_domain wid', 'gamma_delta spin', 'kelvin', 'get x', 'é x', 'nothing-like-this', 'secret', 'et '];

describe('the worker build pool', () => {
  it('gives the same candidates as the in-process build, over several shards and both workers', async () => {
    const inProcess = await built(createContentIndex({ files: () => entries, read, store: new MemoryIndexStore() }));
    const dir = join(cacheRoot, 'pool');
    const store = new DiskIndexStore({ root: ws.root, dir });
    const progress: number[] = [];
    const pooled = await built(
      createContentIndex({
        files: () => entries,
        read: async () => {
          throw new Error('the pool reads files itself');
        },
        store,
        builder: createIndexBuildPool({ workers: 2, store, shardTextBytes: 16 * 1024 }),
        onProgress: (status) => progress.push(status.progress),
      }),
    );
    expect(pooled.footprint().shards).toBeGreaterThan(3);
    expect((await store.shardNames()).length).toBe(pooled.footprint().shards);
    expect(progress.at(-1)).toBe(1);
    expect(progress.length).toBeGreaterThan(2);
    // The link is the one file the two read differently (fs.read follows it; the worker does not).
    const files = entries.filter((entry) => entry.path !== 'src/link.txt');
    for (const literal of LITERALS) {
      for (const caseSensitive of [false, true]) {
        const plan = { required: [[literal]], caseSensitive };
        const expected = (await inProcess.candidates(plan, files)).map((e) => e.path);
        expect(expected.length).toBeLessThan(files.length);
        expect((await pooled.candidates(plan, files)).map((e) => e.path), `${literal} ${caseSensitive}`).toEqual(expected);
      }
    }
    const alpha = (await pooled.candidates({ required: [['alpha']], caseSensitive: true }, entries)).map((e) => e.path);
    expect(alpha).not.toContain('src/nul.bin');
    expect(alpha).not.toContain('src/large.txt');
    expect(alpha).toContain('src/link.txt');
    await inProcess.close();
    await pooled.close();
  });

  it('without a disk store the workers send their shards back', async () => {
    const store = new MemoryIndexStore();
    const index = await built(
      createContentIndex({ files: () => entries, read, store, builder: createIndexBuildPool({ workers: 2, shardTextBytes: 64 * 1024 }) }),
    );
    expect((await store.shardNames()).length).toBe(index.footprint().shards);
    expect((await index.candidates({ required: [['irq_domain']], caseSensitive: true }, entries)).length).toBeGreaterThan(0);
    await index.close();
  });

  it('a file that vanished before the build is read stays a candidate (unreadable), never a failure', async () => {
    const ghost: IndexEntry = { path: 'src/ghost.txt', absolutePath: join(ws.root, 'src', 'ghost.txt'), size: 10, version: 'g1' };
    const store = new MemoryIndexStore();
    const index = await built(createContentIndex({ files: () => [ghost], read, store, builder: createIndexBuildPool({ workers: 1 }) }));
    expect(await index.candidates({ required: [['anything']], caseSensitive: false }, [ghost])).toEqual([ghost]);
    await index.close();
  });
});
