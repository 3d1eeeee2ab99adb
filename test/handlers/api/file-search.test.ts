import { describe, expect, it } from 'vitest';
import type { DirEntry, FileSystem } from '../../../adapters/fs/file-system.ts';
import { FsError } from '../../../adapters/fs/fs-error.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import {
  BestOf,
  compareHits,
  findFiles,
  walkFiles,
  type FindOptions,
  type WalkOptions,
} from '../../../core/file-search/find-files.ts';

const ROOT = '/ws';
const BIG = 50_000;

/** A memory tree under /ws from root-relative paths (content irrelevant). */
function tree(...relPaths: string[]): MemoryFileSystem {
  return new MemoryFileSystem(Object.fromEntries(relPaths.map((rel) => [`${ROOT}/${rel}`, ''])));
}

/** A FileSystem that records every readdir (and can delay them) — a view onto a real backend. */
function recording(fs: FileSystem, delay?: (path: string) => number): FileSystem & { reads: string[] } {
  const reads: string[] = [];
  return Object.assign(Object.create(fs) as FileSystem, {
    reads,
    async readdir(path: string): Promise<DirEntry[]> {
      reads.push(path);
      const ms = delay?.(path) ?? 0;
      if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
      return fs.readdir(path);
    },
  });
}

async function find(fs: FileSystem, query: string, extra: Partial<FindOptions> = {}): Promise<string[]> {
  const hits = await findFiles(fs, ROOT, { query, limit: 50, maxEntries: BIG, ...extra });
  for (const hit of hits) expect(hit.relPath.endsWith(hit.name)).toBe(true);
  return hits.map((hit) => hit.relPath);
}

/** Every file the walk yields, in walk order. */
async function walkOrder(fs: FileSystem, options: Partial<WalkOptions> = {}): Promise<string[]> {
  const out: string[] = [];
  await walkFiles(
    fs,
    ROOT,
    (folder, names) => {
      for (const name of names) out.push(folder.relPath === '' ? name : `${folder.relPath}/${name}`);
    },
    { maxEntries: BIG, ...options },
  );
  return out;
}

describe('walkFiles', () => {
  it('is breadth-first with each folder in code-unit name order', async () => {
    const fs = tree('b/deep/x.txt', 'b/y.txt', 'a/z.txt', 'B.txt', 'a.txt', 'a/c/d.txt', '_.txt', 'é.txt');
    expect(await walkOrder(fs)).toEqual([
      'B.txt',
      '_.txt',
      'a.txt',
      'é.txt',
      'a/z.txt',
      'b/y.txt',
      'a/c/d.txt',
      'b/deep/x.txt',
    ]);
  });

  it('never enters .git or node_modules folders, at any depth, but lists files with those names', async () => {
    const fs = recording(
      tree('.git/HEAD', 'node_modules/x/index.js', 'pkg/node_modules/y.js', 'pkg/.git/config', 'pkg/a.js', 'sub/.git'),
    );
    expect(await walkOrder(fs)).toEqual(['pkg/a.js', 'sub/.git']);
    expect(fs.reads).toEqual([ROOT, `${ROOT}/pkg`, `${ROOT}/sub`]);
  });

  it('counts every entry seen and stops after maxEntries', async () => {
    // Walk order of entries: [a.txt, b.txt, dir, node_modules] then dir: [c.txt, d.txt]
    const fs = tree('a.txt', 'b.txt', 'dir/c.txt', 'dir/d.txt', 'node_modules/m.js');
    const run = async (maxEntries: number) => {
      const files: string[] = [];
      const summary = await walkFiles(fs, ROOT, (f, names) => void files.push(...names.map((n) => `${f.relPath}:${n}`)), { maxEntries });
      return { files, ...summary };
    };
    expect(await run(1)).toEqual({ files: [':a.txt'], entriesSeen: 1, truncated: true });
    expect(await run(4)).toEqual({ files: [':a.txt', ':b.txt'], entriesSeen: 4, truncated: true });
    expect(await run(5)).toEqual({ files: [':a.txt', ':b.txt', 'dir:c.txt'], entriesSeen: 5, truncated: true });
    expect(await run(6)).toEqual({ files: [':a.txt', ':b.txt', 'dir:c.txt', 'dir:d.txt'], entriesSeen: 6, truncated: true });
    expect(await run(7)).toEqual({ files: [':a.txt', ':b.txt', 'dir:c.txt', 'dir:d.txt'], entriesSeen: 6, truncated: false });
  });

  it('skips folders it cannot read, silently', async () => {
    const fs = tree('a/secret.txt', 'a/deeper/s.txt', 'b/open.txt', 'top.txt');
    await fs.chmod(`${ROOT}/a`, 0);
    expect(await walkOrder(fs)).toEqual(['top.txt', 'b/open.txt']);
  });

  it('skips a folder that vanishes or fails with any FsError', async () => {
    const base = tree('a/x.txt', 'b/y.txt');
    const flaky = Object.assign(Object.create(base) as FileSystem, {
      async readdir(path: string) {
        if (path === `${ROOT}/a`) throw new FsError('io', path);
        return base.readdir(path);
      },
    });
    expect(await walkOrder(flaky)).toEqual(['b/y.txt']);
  });

  it("propagates the root's own failure", async () => {
    await expect(walkOrder(new MemoryFileSystem())).rejects.toMatchObject({ name: 'FsError', code: 'not-found' });
    const file = new MemoryFileSystem({ [ROOT]: 'a file' });
    await expect(walkOrder(file)).rejects.toMatchObject({ code: 'not-directory' });
    const locked = tree('a.txt');
    await locked.chmod(ROOT, 0);
    await expect(walkOrder(locked)).rejects.toMatchObject({ code: 'permission-denied' });
  });

  it('lists links to files, never enters links to folders, skips dangling links', async () => {
    const fs = new MemoryFileSystem({ '/ws/real/a.txt': '', '/ws/b.txt': '', '/outside/secret.txt': '' });
    await fs.symlink('real', '/ws/dir-link');
    await fs.symlink('/ws', '/ws/real/loop');
    await fs.symlink('b.txt', '/ws/file-link');
    await fs.symlink('nowhere', '/ws/dangling');
    await fs.symlink('/outside/secret.txt', '/ws/escape');
    expect(await walkOrder(fs)).toEqual(['b.txt', 'escape', 'file-link', 'real/a.txt']);
    expect(await walkOrder(fs, { confineTo: ROOT })).toEqual(['b.txt', 'file-link', 'real/a.txt']);
  });

  it('gives the same order whatever the readdir timing and concurrency', async () => {
    const paths: string[] = [];
    for (let i = 0; i < 12; i++) for (let j = 0; j < 4; j++) paths.push(`d${i}/e${j}/f.txt`, `d${i}/g${j}.txt`);
    const fs = tree(...paths);
    const expected = await walkOrder(fs, { concurrency: 1 });
    expect(expected).toHaveLength(96);
    const slowEarly = recording(fs, (path) => (path.includes('d0') || path.includes('d1') ? 15 : Math.random() * 3));
    expect(await walkOrder(slowEarly, { concurrency: 8 })).toEqual(expected);
    expect(await walkOrder(slowEarly, { concurrency: 64, maxEntries: 40 })).toEqual(expected.slice(0, 12));
  });

  it('a visitor returning true stops the walk', async () => {
    const fs = recording(tree('a/x', 'b/y', 'c/z', 'top'));
    const seen: string[] = [];
    await walkFiles(fs, ROOT, (folder, names) => {
      seen.push(...names);
      return folder.relPath === 'a';
    }, { maxEntries: BIG, concurrency: 1 });
    expect(seen).toEqual(['top', 'x']);
    expect(fs.reads).toEqual([ROOT, `${ROOT}/a`]); // nothing read ahead with concurrency 1
  });

  it('walks from "/" with correct paths', async () => {
    const fs = new MemoryFileSystem({ '/a.txt': '', '/d/b.txt': '' });
    const folders: string[] = [];
    await walkFiles(fs, '/', (folder) => void folders.push(`${folder.path}|${folder.relPath}`), { maxEntries: BIG });
    expect(folders).toEqual(['/|', '/d|d']);
  });
});

describe('findFiles', () => {
  const fs = tree(
    'README.md',
    'src/main.go',
    'src/server/main_test.go',
    'cmd/main/app.go',
    'docs/Main.md',
    'a/b/c/domain.txt',
    'x/main',
    'src/util.go',
  );

  it('ranks base-name matches first, then shorter relPath, then code-unit order', async () => {
    expect(await find(fs, 'main')).toEqual([
      'x/main',
      'src/main.go',
      'docs/Main.md',
      'a/b/c/domain.txt',
      'src/server/main_test.go',
      'cmd/main/app.go',
    ]);
  });

  it('breaks length ties alphabetically by relPath in code-unit order', async () => {
    const ties = tree('b/ab.txt', 'a/AB.txt', 'c/aB.txt', 'ab/x.txt');
    expect(await find(ties, 'ab')).toEqual(['a/AB.txt', 'b/ab.txt', 'c/aB.txt', 'ab/x.txt']);
  });

  it('matches case-insensitively anywhere in the relative path, across slashes', async () => {
    expect(await find(fs, 'SRC/MA')).toEqual(['src/main.go']);
    expect(await find(fs, 'n/a')).toEqual(['cmd/main/app.go']);
    expect(await find(fs, 'c/d')).toEqual(['a/b/c/domain.txt']);
    expect(await find(fs, '.GO')).toEqual(['src/main.go', 'src/util.go', 'cmd/main/app.go', 'src/server/main_test.go']);
  });

  it('returns [] when nothing matches', async () => {
    expect(await find(fs, 'zzz')).toEqual([]);
  });

  it('keeps only the best `limit` hits', async () => {
    expect(await find(fs, 'main', { limit: 2 })).toEqual(['x/main', 'src/main.go']);
    expect(await find(fs, 'main', { limit: 1 })).toEqual(['x/main']);
  });

  it('an empty query gives the first files in walk order and stops reading early', async () => {
    expect(await find(fs, '')).toEqual([
      'README.md',
      'docs/Main.md',
      'src/main.go',
      'src/util.go',
      'x/main',
      'cmd/main/app.go',
      'src/server/main_test.go',
      'a/b/c/domain.txt',
    ]);
    const rec = recording(fs);
    expect(await find(rec, '', { limit: 2, concurrency: 1 })).toEqual(['README.md', 'docs/Main.md']);
    expect(rec.reads).toEqual([ROOT, `${ROOT}/a`, `${ROOT}/cmd`, `${ROOT}/docs`]);
  });

  it('finds exactly the files whose lower-cased relPath holds the query, across folder boundaries', async () => {
    // Random trees and queries (pieces of paths, so many span a '/'), against the rule itself: every file whose
    // relPath.toLowerCase() contains the query, ranked by compareHits.
    let seed = 3;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const pick = (alphabet: string, max: number) =>
      Array.from({ length: 1 + Math.floor(random() * max) }, () => alphabet[Math.floor(random() * alphabet.length)]!).join('');
    const relPaths = new Set<string>();
    while (relPaths.size < 300) {
      const depth = Math.floor(random() * 4);
      const name = pick('abBé.', 4);
      relPaths.add([...Array.from({ length: depth }, () => pick('abAB', 3)), /^\.+$/.test(name) ? name + 'a' : name].join('/'));
    }
    const files = [...relPaths].filter((rel) => ![...relPaths].some((other) => other.startsWith(rel + '/')));
    const randomTree = tree(...files);
    const queries = ['a/b', 'B/A', '/', 'b/', '/a', 'ab/ab', 'a/b/a', 'é', 'b.', 'é/'];
    for (let i = 0; i < 25; i++) {
      const rel = files[Math.floor(random() * files.length)]!;
      const start = Math.floor(random() * rel.length);
      queries.push(rel.slice(start, start + 2 + Math.floor(random() * 4)));
    }
    for (const query of queries) {
      const needle = query.toLowerCase();
      const expected = files
        .filter((rel) => rel.toLowerCase().includes(needle))
        .map((rel) => ({ name: rel.slice(rel.lastIndexOf('/') + 1), relPath: rel }))
        .map((hit) => ({ ...hit, nameMatch: hit.name.toLowerCase().includes(needle) }))
        .sort(compareHits)
        .map((hit) => hit.relPath);
      expect(await find(randomTree, query, { limit: 500 })).toEqual(expected);
    }
  });

  it('respects the entry budget when ranking', async () => {
    // Root entries: README.md a cmd docs src x (6), then a: [b], cmd: [main], docs: [Main.md] …
    expect(await find(fs, 'main', { maxEntries: 9 })).toEqual(['docs/Main.md']);
  });
});

describe('BestOf', () => {
  it('keeps exactly what a full sort would keep', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (const limit of [1, 3, 50, 500]) {
      const items = Array.from({ length: 2_000 }, () => {
        const relPath = 'p'.repeat(1 + Math.floor(random() * 5)) + String.fromCharCode(97 + Math.floor(random() * 26));
        return { name: relPath, relPath, nameMatch: random() < 0.3 };
      });
      const best = new BestOf(limit, compareHits);
      for (const item of items) best.offer(item);
      expect(best.result()).toEqual([...items].sort(compareHits).slice(0, limit));
    }
  });
});
