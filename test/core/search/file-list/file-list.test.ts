/**
 * The live file list over both backends: the first walk, search's ignore flags, changes through the API (the
 * FileSystem observed into a change feed, as runtime/app.ts wires it), `resync`, and on Node changes made
 * directly on disk, heard by the OS watcher.
 */
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../../adapters/fs/file-system.ts';
import { ObservedFileSystem } from '../../../../adapters/fs/observed-file-system.ts';
import { ParcelWatcherAdapter } from '../../../../adapters/watcher/parcel-watcher-adapter.ts';
import type { ChangeFeed } from '../../../../core/changes/change-feed.ts';
import { createChangeFeed } from '../../../../core/changes/create-change-feed.ts';
import { createFileList } from '../../../../core/search/file-list/create-file-list.ts';
import type { FileList, FileListEvent } from '../../../../core/search/file-list/file-list.ts';
import { appOver, BACKENDS, buildTree, type BuiltTree, type Seed } from '../../../support/backends.ts';
import { waitFor } from '../../../support/processes.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Setup extends BuiltTree {
  feed: ChangeFeed;
  /** Writes through this are reported to the feed, as the API's are. */
  api: FileSystem;
  list: FileList;
  /** Every onChange call, in order. */
  batches: FileListEvent[][];
}

async function setup(backend: (typeof BACKENDS)[number], seed: Seed, exclude?: string): Promise<Setup> {
  const built = await buildTree(backend, seed);
  const feed = createChangeFeed();
  const api = new ObservedFileSystem(built.fs, (change) => feed.publish(change));
  const list = createFileList({ fs: built.fs, root: built.root, changes: feed, exclude: exclude ? [`${built.root}/${exclude}`] : [] });
  cleanups.push(built.cleanup, () => feed.close(), () => list.close());
  const batches: FileListEvent[][] = [];
  list.onChange((events) => batches.push([...events]));
  await list.ready;
  return { ...built, feed, api, list, batches };
}

/** Every listed file as `path` or `path (ignored)`, in the list's order. */
function listing(list: FileList): string[] {
  return list.files({ includeIgnored: true }).map((file) => (file.ignored ? `${file.path} (ignored)` : file.path));
}

/** Waits until the list (with ignored files) is exactly `expected`. */
async function until(list: FileList, expected: string[], what = 'the list'): Promise<void> {
  await waitFor(() => JSON.stringify(listing(list)) === JSON.stringify(expected), { timeoutMs: 5000, what }).catch(() => {
    expect(listing(list)).toEqual(expected);
  });
}

function summarize(events: readonly FileListEvent[]): string[] {
  return events
    .map((event) => (event.kind === 'upsert' ? `+${event.file.path}${event.file.ignored ? ' (ignored)' : ''}` : event.kind === 'remove' ? `-${event.path}` : 'reset'))
    .sort();
}

const SEED: Seed = {
  'README.md': '# hi',
  'src/app.ts': 'export {}',
  'src/app-b.ts': '',
  'src.txt': '',
  'src-x/y.ts': '',
  'dist/bundle.js': '',
  'pkg/build/out.js': '',
  'logs/today.log': '',
  'logs/keep.log': '',
  '.gitignore': 'logs/*\n!logs/keep.log\n*.tmp\n',
  'pkg/.gitignore': 'build/\n',
  'pkg/a.tmp': '',
  'node_modules/left-pad/index.js': 'x',
  'web/node_modules/react/index.js': '',
  '.git/HEAD': 'ref: refs/heads/main',
  'sub/.git': 'gitdir: ../.git/worktrees/sub',
  'sub/code.go': '',
  '.env': 'A=1',
  'venv/pyvenv.cfg': 'home = /usr',
  'venv/lib/site.py': '',
  'a/__pycache__/m.pyc': '',
};

const EXPECTED_INITIAL = [
  '.env',
  '.gitignore',
  'README.md',
  'a/__pycache__/m.pyc (ignored)',
  'dist/bundle.js (ignored)',
  'logs/keep.log',
  'logs/today.log (ignored)',
  'pkg/.gitignore',
  'pkg/a.tmp (ignored)',
  'pkg/build/out.js (ignored)',
  'src-x/y.ts',
  'src.txt',
  'src/app-b.ts',
  'src/app.ts',
  'sub/code.go',
  'venv/lib/site.py (ignored)',
  'venv/pyvenv.cfg (ignored)',
];

describe.each(BACKENDS)('createFileList (%s)', (backend) => {
  it('walks every file once, in code-unit order of path, with search\'s ignore flags; never .git or the stores', async () => {
    const { list, fs, root } = await setup(backend, SEED);
    expect(list.isReady).toBe(true);
    expect(listing(list)).toEqual(EXPECTED_INITIAL);
    expect(list.files({ includeIgnored: false }).map((file) => file.path)).toEqual(
      EXPECTED_INITIAL.filter((path) => !path.endsWith('(ignored)')),
    );
    const stat = await fs.stat(`${root}/src/app.ts`);
    expect(list.get('src/app.ts')).toEqual({
      path: 'src/app.ts',
      absolutePath: `${root}/src/app.ts`,
      size: 9,
      version: stat.version,
      ignored: false,
    });
    expect(list.get('.git/HEAD')).toBeUndefined();
    expect(list.get('sub/.git')).toBeUndefined();
    expect(list.get('node_modules/left-pad/index.js')).toBeUndefined();
  });

  it('returns the same array until something changes, and bumps the generation per applied batch', async () => {
    const { list, api, root } = await setup(backend, { 'a.txt': '' });
    const first = list.files({ includeIgnored: false });
    expect(list.files({ includeIgnored: false })).toBe(first);
    const generation = list.generation;
    await api.write(`${root}/b.txt`, 'b');
    await until(list, ['a.txt', 'b.txt']);
    expect(list.generation).toBe(generation + 1);
    expect(list.files({ includeIgnored: false })).not.toBe(first);
  });

  it('follows files created, changed and deleted through the API, a burst in one batch', async () => {
    const { list, api, fs, feed, root, batches } = await setup(backend, { 'keep.txt': 'k', 'old.txt': 'o' });
    // A burst as a watcher delivers one: the changes are made, then reported together.
    await fs.write(`${root}/n1.txt`, '1');
    await fs.write(`${root}/n2.txt`, '22');
    await fs.remove(`${root}/old.txt`);
    feed.publish({ absolutePath: `${root}/n1.txt`, version: 'v1' });
    feed.publish({ absolutePath: `${root}/n2.txt`, version: 'v2' });
    feed.publish({ absolutePath: `${root}/old.txt`, absent: true });
    await until(list, ['keep.txt', 'n1.txt', 'n2.txt']);
    expect(batches.map(summarize)).toEqual([['+n1.txt', '+n2.txt', '-old.txt']]);
    expect(list.get('n2.txt')).toMatchObject({ size: 2, version: (await fs.stat(`${root}/n2.txt`)).version });
    await api.write(`${root}/n2.txt`, 'longer now');
    await waitFor(() => list.get('n2.txt')?.size === 10, { what: 'the new size' });
    expect(list.get('n2.txt')!.version).toBe((await api.stat(`${root}/n2.txt`)).version);
    expect(batches.length).toBe(2);
  });

  it('hands out whole files after changes too: absolutePath, spread and JSON; get finds nested files only', async () => {
    const { list, api, fs, root } = await setup(backend, { 'src/deep/a.ts': 'a', 'src/b.ts': 'b' });
    await api.write(`${root}/src/deep/a.ts`, 'longer');
    await waitFor(() => list.get('src/deep/a.ts')?.size === 6, { what: 'the new size' });
    await api.write(`${root}/.gitignore`, 'b.ts\n');
    await waitFor(() => list.get('src/b.ts')?.ignored === true, { what: 'the new flag' });
    const changed = { path: 'src/deep/a.ts', absolutePath: `${root}/src/deep/a.ts`, size: 6, version: (await fs.stat(`${root}/src/deep/a.ts`)).version, ignored: false };
    const flagged = { path: 'src/b.ts', absolutePath: `${root}/src/b.ts`, size: 1, version: (await fs.stat(`${root}/src/b.ts`)).version, ignored: true };
    expect(list.get('src/deep/a.ts')).toEqual(changed);
    expect(list.get('src/b.ts')).toEqual(flagged);
    expect({ ...list.get('src/deep/a.ts')! }).toEqual(changed);
    const gitignore = { path: '.gitignore', absolutePath: `${root}/.gitignore`, size: 5, version: (await fs.stat(`${root}/.gitignore`)).version, ignored: false };
    expect(JSON.parse(JSON.stringify(list.files({ includeIgnored: true })))).toEqual([gitignore, flagged, changed]);
    for (const path of ['', 'src', 'src/deep', 'src/deep/', 'src/deep/a.ts/x', 'src/nope.ts', 'nope/a.ts', '/src/b.ts']) {
      expect(list.get(path)).toBeUndefined();
    }
  });

  it('walks a folder that appears and drops one that goes, whole', async () => {
    const { list, api, root, batches } = await setup(backend, { 'x.txt': '', 'tree/a/b.txt': '', 'tree/c.txt': '' });
    await api.write(`${root}/new/deep/er/file.ts`, 'x', { mkdirs: true }); // only the file is reported
    await until(list, ['new/deep/er/file.ts', 'tree/a/b.txt', 'tree/c.txt', 'x.txt']);
    await api.rename(`${root}/tree`, `${root}/moved`);
    await until(list, ['moved/a/b.txt', 'moved/c.txt', 'new/deep/er/file.ts', 'x.txt']);
    await api.remove(`${root}/new`, { recursive: true });
    await until(list, ['moved/a/b.txt', 'moved/c.txt', 'x.txt']);
    expect(batches.map(summarize).flat()).toEqual(
      expect.arrayContaining(['+new/deep/er/file.ts', '+moved/a/b.txt', '-tree/a/b.txt', '-tree/c.txt', '-new/deep/er/file.ts']),
    );
  });

  it('recomputes the flags when a .gitignore changes (a deeper one with "!" wins)', async () => {
    const { list, api, root, batches } = await setup(backend, {
      'a/keep.ts': '',
      'a/gen.ts': '',
      'b/gen.ts': '',
      'b/deep/gen.ts': '',
    });
    await api.write(`${root}/.gitignore`, 'gen.ts\n');
    await until(list, ['.gitignore', 'a/gen.ts (ignored)', 'a/keep.ts', 'b/deep/gen.ts (ignored)', 'b/gen.ts (ignored)']);
    expect(summarize(batches.at(-1)!)).toEqual(['+.gitignore', '+a/gen.ts (ignored)', '+b/deep/gen.ts (ignored)', '+b/gen.ts (ignored)']);
    await api.write(`${root}/b/.gitignore`, '!gen.ts\n');
    await until(list, ['.gitignore', 'a/gen.ts (ignored)', 'a/keep.ts', 'b/.gitignore', 'b/deep/gen.ts', 'b/gen.ts']);
    await api.remove(`${root}/.gitignore`);
    await until(list, ['a/gen.ts', 'a/keep.ts', 'b/.gitignore', 'b/deep/gen.ts', 'b/gen.ts']);
  });

  it('on resync, re-walks and applies the difference', async () => {
    const { list, fs, feed, root, batches } = await setup(backend, { 'a.txt': 'a', 'gone/x.txt': '' });
    // Behind the feed's back: nothing is reported until the resync.
    await fs.write(`${root}/a.txt`, 'changed');
    await fs.write(`${root}/new.txt`, '');
    await fs.remove(`${root}/gone`, { recursive: true });
    feed.resync();
    await until(list, ['a.txt', 'new.txt']);
    expect(list.get('a.txt')!.size).toBe(7);
    expect(summarize(batches.at(-1)!)).toEqual(['+a.txt', '+new.txt', '-gone/x.txt']);
  });

  it('never lists the excluded folder (the agents\' copies), even when it appears later', async () => {
    const { list, api, root } = await setup(backend, { '.agents/a1/x.ts': '', 'y.ts': '' }, '.agents');
    expect(listing(list)).toEqual(['y.ts']);
    await api.write(`${root}/.agents/a2/z.ts`, '', { mkdirs: true });
    await api.write(`${root}/w.ts`, '');
    await until(list, ['w.ts', 'y.ts']);
  });

  it('skips symlinks in files(), but the walk lists links to files inside the root', async () => {
    const { list, root } = await setup(backend, {
      'real/t.txt': '',
      'file-link': { link: 'real/t.txt' },
      'dir-link': { link: 'real' },
      dangling: { link: 'nowhere' },
      escape: { link: '$OUTSIDE/secret.txt' },
    });
    expect(listing(list)).toEqual(['real/t.txt']);
    const walk = (linksLeavingRoot: boolean) => {
      const seen: string[] = [];
      list.walkBreadthFirst((folder, names) => void seen.push(...names.map((n) => (folder.relPath ? `${folder.relPath}/${n}` : n))), {
        maxEntries: 100,
        linksLeavingRoot,
      });
      return seen;
    };
    expect(walk(false)).toEqual(['file-link', 'real/t.txt']);
    expect(walk(true)).toEqual(['escape', 'file-link', 'real/t.txt']);
    expect(root).toBeTruthy();
  });

  it('revives a dangling link when its target appears, through the API', async () => {
    const { list, api, root } = await setup(backend, { link: { link: 'target.txt' } });
    const walk = () => {
      const seen: string[] = [];
      list.walkBreadthFirst((_folder, names) => void seen.push(...names), { maxEntries: 100 });
      return seen;
    };
    expect(walk()).toEqual([]);
    await api.write(`${root}/target.txt`, 't');
    await waitFor(() => walk().length === 2, { what: 'the link listed' });
    expect(walk()).toEqual(['link', 'target.txt']);
  });

  it('walks the store folders on demand, every file ignored', async () => {
    const { list, root } = await setup(backend, SEED);
    const files = [];
    for await (const file of list.storeFiles()) files.push(file);
    expect(files.map((file) => file.path)).toEqual(['node_modules/left-pad/index.js', 'web/node_modules/react/index.js']);
    expect(files[0]).toMatchObject({ absolutePath: `${root}/node_modules/left-pad/index.js`, size: 1, ignored: true });
  });

  it('is not ready for a root that cannot be read, and never fails', async () => {
    const built = await buildTree(backend, {});
    const feed = createChangeFeed();
    const list = createFileList({ fs: built.fs, root: `${built.root}/missing`, changes: feed });
    cleanups.push(built.cleanup, () => feed.close(), () => list.close());
    await list.ready;
    expect(list.isReady).toBe(false);
    expect(list.files({ includeIgnored: true })).toEqual([]);
  });
});

describe('createFileList with the OS watcher (node)', () => {
  it('hears files and folders created, changed, moved and deleted directly on disk', async () => {
    const built = await buildTree('node', { 'a.txt': 'a', 'dir/b.txt': 'b' });
    const app = appOver(built, { watcher: new ParcelWatcherAdapter() });
    const list = createFileList({ fs: built.fs, root: built.root, changes: app.changes });
    cleanups.push(built.cleanup, () => app.close(), () => list.close());
    await list.ready;
    const root = built.root;
    await writeFile(`${root}/c.txt`, 'c');
    await until(list, ['a.txt', 'c.txt', 'dir/b.txt'], 'a file created on disk');
    await writeFile(`${root}/a.txt`, 'a longer');
    await waitFor(() => list.get('a.txt')?.size === 8, { what: 'a file changed on disk' });
    await mkdir(`${root}/made/inner`, { recursive: true });
    await writeFile(`${root}/made/inner/m.ts`, '');
    await until(list, ['a.txt', 'c.txt', 'dir/b.txt', 'made/inner/m.ts'], 'a folder made on disk');
    await rename(`${root}/dir`, `${root}/renamed`);
    await until(list, ['a.txt', 'c.txt', 'made/inner/m.ts', 'renamed/b.txt'], 'a folder renamed on disk');
    await rm(`${root}/made`, { recursive: true });
    await symlink('a.txt', `${root}/link.txt`);
    await until(list, ['a.txt', 'c.txt', 'renamed/b.txt'], 'a folder deleted on disk');
    await writeFile(`${root}/.gitignore`, 'c.txt\n');
    await until(list, ['.gitignore', 'a.txt', 'c.txt (ignored)', 'renamed/b.txt'], '.gitignore edited on disk');
  });
});
