import { afterEach, describe, expect, it } from 'vitest';
import { FsError } from '../../../adapters/fs/fs-error.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { listFolder } from '../../../core/listing/list-folder.ts';
import { BACKENDS, buildTree, makeFifo, type BuiltTree, type Seed } from '../../support/backends.ts';
import { instrumented } from '../tree-ops/faulty-file-system.ts';

/** The stats a listing pays for: every call that looks at one entry. */
const STAT_CALLS = ['lstat', 'stat', 'realpath', 'readlink'];
const statsIn = (calls: Record<string, number>) => STAT_CALLS.reduce((sum, method) => sum + (calls[method] ?? 0), 0);

describe.each(BACKENDS)('listFolder (%s)', (backend) => {
  let t: BuiltTree;
  afterEach(() => t.cleanup());
  const setup = async (seed: Seed) => (t = await buildTree(backend, seed));

  it('lists by name in code-unit order, each entry as what it is, links followed to their targets', async () => {
    await setup({
      'b.txt': 'bee',
      'Z.md': 'zz',
      '.dot': '',
      'sub/inner': 'x',
      'to-file': { link: 'b.txt' },
      'to-dir': { link: 'sub' },
      'to-link': { link: 'to-file' },
      'dangling': { link: 'nowhere' },
      'loop': { link: 'loop' },
      'to-outside': { link: '$OUTSIDE/secret.txt' },
    });
    expect(await listFolder(t.fs, t.root, { confineTo: t.root })).toEqual({
      entries: [
        { name: '.dot', kind: 'file', size: 0 },
        { name: 'Z.md', kind: 'file', size: 2 },
        { name: 'b.txt', kind: 'file', size: 3 },
        { name: 'dangling', kind: 'symlink' },
        { name: 'loop', kind: 'symlink' },
        { name: 'sub', kind: 'dir' },
        { name: 'to-dir', kind: 'dir' },
        { name: 'to-file', kind: 'file', size: 3 },
        { name: 'to-link', kind: 'file', size: 3 },
        { name: 'to-outside', kind: 'symlink' },
      ],
      truncated: false,
    });
    // Unconfined, a link leaving the folder is followed like any other.
    const free = await listFolder(t.fs, t.root);
    expect(free.entries.find((entry) => entry.name === 'to-outside')).toEqual({ name: 'to-outside', kind: 'file', size: 6 });
  });

  it('sorts, then cuts: a cut listing is the first entries by name, whatever order the folder yields', async () => {
    const seed: Seed = {};
    for (let i = 29; i >= 0; i--) seed[`k${String(i).padStart(2, '0')}`] = '';
    await setup(seed);
    const yielded = (await t.fs.readdir(t.root, { limit: 100 })).map((entry) => entry.name);
    expect(yielded.slice(0, 5), 'the backend does not yield name order here').not.toEqual(['k00', 'k01', 'k02', 'k03', 'k04']);
    const cut = await listFolder(t.fs, t.root, { maxEntries: 4 });
    expect(cut).toEqual({
      entries: ['k00', 'k01', 'k02', 'k03'].map((name) => ({ name, kind: 'file', size: 0 })),
      truncated: true,
    });
    expect((await listFolder(t.fs, t.root, { maxEntries: 30 })).truncated).toBe(false);
    expect(await listFolder(t.fs, t.root, { maxEntries: 0 })).toEqual({ entries: [], truncated: true });
  });

  it('leaves out the excluded child, which takes no place under the cap', async () => {
    await setup({ '.agents/a1/x': '', 'a': '', 'b': '' });
    expect(await listFolder(t.fs, t.root, { maxEntries: 2, exclude: `${t.root}/.agents` })).toEqual({
      entries: [
        { name: 'a', kind: 'file', size: 0 },
        { name: 'b', kind: 'file', size: 0 },
      ],
      truncated: false,
    });
  });

  it('stats only the entries it keeps, and never a folder', async () => {
    const seed: Seed = {};
    for (let i = 0; i < 40; i++) seed[`f${String(i).padStart(2, '0')}`] = 'x';
    for (let i = 0; i < 10; i++) seed[`d${i}/`] = '';
    await setup(seed);
    const counted = instrumented(t.fs);
    const listing = await listFolder(counted.fs, t.root, { maxEntries: 15, confineTo: t.root });
    expect(listing.entries.map((entry) => entry.name)).toEqual([...Array.from({ length: 10 }, (_, i) => `d${i}`), 'f00', 'f01', 'f02', 'f03', 'f04']);
    expect(counted.calls.readdir).toBe(1);
    expect(statsIn(counted.calls)).toBe(5); // the five files kept; the ten folders cost nothing
  });

  it('propagates an error reading the folder itself', async () => {
    await setup({ 'file.txt': '' });
    await expect(listFolder(t.fs, `${t.root}/nope`)).rejects.toMatchObject({ code: 'not-found' });
    await expect(listFolder(t.fs, `${t.root}/file.txt`)).rejects.toMatchObject({ code: 'not-directory' });
  });

  it('leaves out a file gone since the readdir; keeps one it cannot stat, without a size', async () => {
    await setup({ 'gone': '', 'locked': '', 'ok': 'ok' });
    const faulty = instrumented(t.fs);
    const failLstat = (name: string, error: FsError) =>
      faulty.failOn((method, [path]) => method === 'lstat' && path === `${t.root}/${name}`, error);
    failLstat('locked', new FsError('permission-denied', `${t.root}/locked`));
    expect((await listFolder(faulty.fs, t.root)).entries).toEqual([
      { name: 'gone', kind: 'file', size: 0 },
      { name: 'locked', kind: 'file' },
      { name: 'ok', kind: 'file', size: 2 },
    ]);
    failLstat('gone', new FsError('not-found', `${t.root}/gone`));
    expect((await listFolder(faulty.fs, t.root)).entries.map((entry) => entry.name)).toEqual(['locked', 'ok']);
  });
});

describe('listFolder (node specifics)', () => {
  it('reports a FIFO as other without opening or stat-ing it', async () => {
    const t = await buildTree('node', { 'f': 'x' });
    try {
      makeFifo(`${t.root}/pipe`);
      const counted = instrumented(t.fs);
      expect((await listFolder(counted.fs, t.root)).entries).toEqual([
        { name: 'f', kind: 'file', size: 1 },
        { name: 'pipe', kind: 'other' },
      ]);
      expect(statsIn(counted.calls)).toBe(1);
    } finally {
      await t.cleanup();
    }
  });
});

describe('listFolder (a big folder, memory)', () => {
  it('costs one readdir and about maxEntries stats for 50 000 entries', async () => {
    const fs = new MemoryFileSystem();
    await fs.mkdir('/big');
    for (let i = 49_999; i >= 0; i--) await fs.write(`/big/e${String(i).padStart(6, '0')}`, '');
    const counted = instrumented(fs);
    const listing = await listFolder(counted.fs, '/big', { maxEntries: 2000, confineTo: '/big' });
    expect(listing.truncated).toBe(true);
    expect(listing.entries).toHaveLength(2000);
    expect(listing.entries[0]).toEqual({ name: 'e000000', kind: 'file', size: 0 });
    expect(listing.entries.at(-1)).toEqual({ name: 'e001999', kind: 'file', size: 0 });
    expect(counted.calls.readdir).toBe(1);
    expect(statsIn(counted.calls)).toBe(2000);
  });
});
