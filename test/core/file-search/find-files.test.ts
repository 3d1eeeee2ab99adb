/**
 * ori's `/api/files/search` answered from the live file list gives what the disk walk gives: the cases of
 * test/handlers/api/file-search.test.ts and search-files.test.ts, each run both ways over both backends, each
 * answer also pinned to the literal the seed's tests expect (so two equally wrong answers cannot pass).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createChangeFeed } from '../../../core/changes/create-change-feed.ts';
import { createFileList } from '../../../core/search/file-list/create-file-list.ts';
import type { FileList } from '../../../core/search/file-list/file-list.ts';
import { findFiles, walkFiles, type FindOptions, type WalkOptions } from '../../../core/file-search/find-files.ts';
import { BACKENDS, buildTree, type BuiltTree, type Seed } from '../../support/backends.ts';

const BIG = 50_000;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function files(...relPaths: string[]): Seed {
  return Object.fromEntries(relPaths.map((rel) => [rel, '']));
}

async function both(backend: (typeof BACKENDS)[number], seed: Seed, exclude?: string): Promise<BuiltTree & { list: FileList }> {
  const built = await buildTree(backend, seed);
  const feed = createChangeFeed();
  const list = createFileList({ fs: built.fs, root: built.root, changes: feed, exclude: exclude ? [exclude] : [] });
  cleanups.push(built.cleanup, () => feed.close(), () => list.close());
  await list.ready;
  expect(list.isReady).toBe(true);
  return { ...built, list };
}

/** The disk walk's files and summary, and the list's; asserted equal, returned once. */
async function walkBoth(tree: BuiltTree & { list: FileList }, options: Partial<WalkOptions> = {}) {
  const run = async (fromList: boolean) => {
    const out: string[] = [];
    const visit = (folder: { relPath: string }, names: readonly string[]) => {
      for (const name of names) out.push(folder.relPath === '' ? name : `${folder.relPath}/${name}`);
    };
    const walkOptions = { maxEntries: BIG, ...options };
    const summary = fromList
      ? tree.list.walkBreadthFirst(visit, { maxEntries: walkOptions.maxEntries, linksLeavingRoot: walkOptions.confineTo === undefined })
      : await walkFiles(tree.fs, tree.root, visit, walkOptions);
    return { files: out, ...summary };
  };
  const disk = await run(false);
  expect(await run(true)).toEqual(disk);
  return disk;
}

async function findBoth(tree: BuiltTree & { list: FileList }, query: string, extra: Partial<FindOptions> = {}) {
  const options = { query, limit: 50, maxEntries: BIG, ...extra };
  const disk = await findFiles(tree.fs, tree.root, options);
  expect(await findFiles(tree.fs, tree.root, { ...options, list: tree.list })).toEqual(disk);
  return disk.map((hit) => hit.relPath);
}

describe.each(BACKENDS)('ori over the file list and over the disk (%s)', (backend) => {
  it('is breadth-first with each folder in code-unit name order', async () => {
    const tree = await both(backend, files('b/deep/x.txt', 'b/y.txt', 'a/z.txt', 'B.txt', 'a.txt', 'a/c/d.txt', '_.txt', 'é.txt'));
    expect((await walkBoth(tree)).files).toEqual(['B.txt', '_.txt', 'a.txt', 'é.txt', 'a/z.txt', 'b/y.txt', 'a/c/d.txt', 'b/deep/x.txt']);
  });

  it('never enters .git or node_modules, but lists files with those names', async () => {
    const tree = await both(backend, files('.git/HEAD', 'node_modules/x/index.js', 'pkg/node_modules/y.js', 'pkg/.git/config', 'pkg/a.js', 'sub/.git'));
    expect((await walkBoth(tree)).files).toEqual(['pkg/a.js', 'sub/.git']);
  });

  it('counts every entry and stops after maxEntries', async () => {
    const tree = await both(backend, files('a.txt', 'b.txt', 'dir/c.txt', 'dir/d.txt', 'node_modules/m.js'));
    const run = async (maxEntries: number) => walkBoth(tree, { maxEntries });
    expect(await run(1)).toEqual({ files: ['a.txt'], entriesSeen: 1, truncated: true });
    expect(await run(4)).toEqual({ files: ['a.txt', 'b.txt'], entriesSeen: 4, truncated: true });
    expect(await run(5)).toEqual({ files: ['a.txt', 'b.txt', 'dir/c.txt'], entriesSeen: 5, truncated: true });
    expect(await run(7)).toEqual({ files: ['a.txt', 'b.txt', 'dir/c.txt', 'dir/d.txt'], entriesSeen: 6, truncated: false });
  });

  it('counts links, ignored folders and the excluded folder as entries', async () => {
    const tree = await both(
      backend,
      { ...files('.agents/a1/x.ts', 'dist/d.js', 'z.txt', 'sub/q.txt'), 'l.txt': { link: 'z.txt' }, 'd.lnk': { link: 'nowhere' } },
      undefined,
    );
    for (const maxEntries of [1, 2, 3, 4, 5, 6, 7, 8, BIG]) await walkBoth(tree, { maxEntries, confineTo: tree.root });
    const excluded = await both(backend, files('.agents/a1/x.ts', 'pkg/.agents/config.ts', 'pkg/config.ts'), undefined);
    const agents = `${excluded.root}/.agents`;
    const feed = createChangeFeed();
    const list = createFileList({ fs: excluded.fs, root: excluded.root, changes: feed, exclude: [agents] });
    cleanups.push(() => feed.close(), () => list.close());
    await list.ready;
    const options = { query: 'config', limit: 50, maxEntries: BIG, exclude: agents };
    const disk = await findFiles(excluded.fs, excluded.root, options);
    expect(disk.map((hit) => hit.relPath)).toEqual(['pkg/config.ts', 'pkg/.agents/config.ts']);
    expect(await findFiles(excluded.fs, excluded.root, { ...options, list })).toEqual(disk);
  });

  it('lists links to files (inside the root when confined), never enters links to folders, skips dangling ones', async () => {
    const tree = await both(backend, {
      ...files('real/a.txt', 'b.txt'),
      'dir-link': { link: 'real' },
      'real/loop': { link: '..' },
      'file-link': { link: 'b.txt' },
      dangling: { link: 'nowhere' },
      escape: { link: '$OUTSIDE/secret.txt' },
    });
    expect((await walkBoth(tree)).files).toEqual(['b.txt', 'escape', 'file-link', 'real/a.txt']);
    expect((await walkBoth(tree, { confineTo: tree.root })).files).toEqual(['b.txt', 'file-link', 'real/a.txt']);
  });

  it('skips folders it cannot read', async () => {
    const tree = await buildTree(backend, files('a/secret.txt', 'a/deeper/s.txt', 'b/open.txt', 'top.txt'));
    cleanups.push(tree.cleanup);
    if (!tree.fs.capabilities.permissions) return; // as root on Node, nothing is unreadable
    await tree.fs.chmod(`${tree.root}/a`, 0);
    const feed = createChangeFeed();
    const list = createFileList({ fs: tree.fs, root: tree.root, changes: feed });
    cleanups.push(() => feed.close(), () => list.close());
    await list.ready;
    expect((await walkBoth({ ...tree, list })).files).toEqual(['top.txt', 'b/open.txt']);
  });

  describe('findFiles', () => {
    const SEED = files('README.md', 'src/main.go', 'src/server/main_test.go', 'cmd/main/app.go', 'docs/Main.md', 'a/b/c/domain.txt', 'x/main', 'src/util.go');

    it('ranks base-name matches first, then shorter relPath, then code-unit order; keeps the best `limit`', async () => {
      const tree = await both(backend, SEED);
      expect(await findBoth(tree, 'main')).toEqual(['x/main', 'src/main.go', 'docs/Main.md', 'a/b/c/domain.txt', 'src/server/main_test.go', 'cmd/main/app.go']);
      expect(await findBoth(tree, 'main', { limit: 2 })).toEqual(['x/main', 'src/main.go']);
      expect(await findBoth(tree, 'SRC/MA')).toEqual(['src/main.go']);
      expect(await findBoth(tree, 'n/a')).toEqual(['cmd/main/app.go']);
      expect(await findBoth(tree, '.GO')).toEqual(['src/main.go', 'src/util.go', 'cmd/main/app.go', 'src/server/main_test.go']);
      expect(await findBoth(tree, 'zzz')).toEqual([]);
    });

    it('an empty query gives the first files in walk order; the budget applies when ranking', async () => {
      const tree = await both(backend, SEED);
      expect(await findBoth(tree, '')).toEqual(['README.md', 'docs/Main.md', 'src/main.go', 'src/util.go', 'x/main', 'cmd/main/app.go', 'src/server/main_test.go', 'a/b/c/domain.txt']);
      expect(await findBoth(tree, '', { limit: 2 })).toEqual(['README.md', 'docs/Main.md']);
      expect(await findBoth(tree, 'main', { maxEntries: 9 })).toEqual(['docs/Main.md']);
    });

    it('breaks length ties by relPath in code-unit order', async () => {
      const tree = await both(backend, files('b/ab.txt', 'a/AB.txt', 'c/aB.txt', 'ab/x.txt', 'B/ab.txt'));
      expect(await findBoth(tree, 'AB')).toEqual(['B/ab.txt', 'a/AB.txt', 'b/ab.txt', 'c/aB.txt', 'ab/x.txt']);
    });
  });

  it('where they differ: store folders other than node_modules are entered by the disk walk only', async () => {
    const tree = await both(backend, files('bower_components/x/a.js', '.hg/store/b', 'c.txt'));
    const disk: string[] = [];
    await walkFiles(tree.fs, tree.root, (folder, names) => void disk.push(...names.map((n) => (folder.relPath ? `${folder.relPath}/${n}` : n))), { maxEntries: BIG });
    const listed: string[] = [];
    tree.list.walkBreadthFirst((folder, names) => void listed.push(...names.map((n) => (folder.relPath ? `${folder.relPath}/${n}` : n))), { maxEntries: BIG });
    expect(disk).toEqual(['c.txt', '.hg/store/b', 'bower_components/x/a.js']);
    expect(listed).toEqual(['c.txt']);
  });
});
