import { afterEach, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { isFsError } from '../../../adapters/fs/fs-error.ts';
import { compareListed, isReadableFile, walkListing, type ListingEntry, type ListingWalkOptions } from '../../../core/listing/walk-listing.ts';
import { treePlace } from '../../../core/tree/tree-place.ts';
import { BACKENDS, buildTree, makeFifo, type BuiltTree, type Seed } from '../../support/backends.ts';
import { instrumented } from '../tree-ops/faulty-file-system.ts';

/** The shape of a listing without sizes and times: name, kind, link state, children. */
type Shape = [string, ...unknown[]];
function shape(entries: ListingEntry[]): Shape[] {
  return entries.map((entry) => {
    const row: Shape = [entry.type === 'dir' ? `${entry.name}/` : entry.name];
    if (entry.link) row.push(entry.link.state ?? 'link');
    if (entry.children) row.push(shape(entry.children));
    return row;
  });
}

describe.each(BACKENDS)('walkListing (%s)', (backend) => {
  let t: BuiltTree;
  afterEach(() => t.cleanup());
  const setup = async (seed: Seed) => (t = await buildTree(backend, seed));

  async function walk(options: Partial<ListingWalkOptions> = {}, top = t.root, fs: FileSystem = t.fs) {
    const place = await treePlace(fs, t.root, `${t.root}/.agents`);
    const folders: { path: string; depth: number; names: string[] }[] = [];
    let tree: ListingEntry[] | undefined;
    for await (const folder of walkListing(place, top, { maxDepth: Infinity, maxEntries: Infinity, ...options })) {
      tree ??= folder.entries;
      folders.push({ path: folder.path.slice(t.root.length) || '/', depth: folder.depth, names: folder.entries.map((e) => e.name) });
    }
    return { tree: tree!, folders };
  }

  it('keeps the top folder’s first maxEntries entries in listing order', async () => {
    await setup({ 'e.txt': '', 'D/x': '', 'c.txt': '', 'B/': '', 'a.txt': '' });
    expect(shape((await walk({ maxEntries: 3 })).tree)).toEqual([['B/'], ['D/'], ['a.txt']]);
  });

  it('opens a folder only if all of it fits, goes on with the next, and stops once the budget is spent', async () => {
    await setup({ 'a/1': '', 'a/2': '', 'a/3': '', 'b/1': '', 'c/': '', 'f.txt': '' });
    // 4 top entries; 2 left: a/ (3) stays closed, b/ (1) is opened, c/ (empty) would fit but the walk goes on
    // only while budget is left (1 is): opened with children [].
    expect(shape((await walk({ maxEntries: 6 })).tree)).toEqual([['a/'], ['b/', [['1']]], ['c/', []], ['f.txt']]);
    // With exactly the top and b/'s entry, nothing is left: c/ stays closed (not even known to be empty).
    expect(shape((await walk({ maxEntries: 5 })).tree)).toEqual([['a/'], ['b/', [['1']]], ['c/'], ['f.txt']]);
  });

  it('walks breadth-first, counting depth from 0 at the top folder’s entries', async () => {
    await setup({ 'a/b/c/d.txt': '', 'a/top.txt': '', 'z/y.txt': '' });
    const all = await walk();
    expect(all.folders).toEqual([
      { path: '/', depth: 0, names: ['a', 'z'] },
      { path: '/a', depth: 1, names: ['b', 'top.txt'] },
      { path: '/z', depth: 1, names: ['y.txt'] },
      { path: '/a/b', depth: 2, names: ['c'] },
      { path: '/a/b/c', depth: 3, names: ['d.txt'] },
    ]);
    expect(shape((await walk({ maxDepth: 1 })).tree)).toEqual([['a/', [['b/'], ['top.txt']]], ['z/', [['y.txt']]]]);
    expect(shape((await walk({ maxDepth: 0 })).tree)).toEqual([['a/'], ['z/']]);
  });

  it('sorts folders first, then names case-insensitively, case-only ties in code-unit order', async () => {
    await setup({ 'b.txt': '', 'B.txt': '', 'a/': '', 'A.txt': '', 'Z/': '', '_x': '', 'é.txt': '' });
    expect(shape((await walk()).tree).map((row) => row[0])).toEqual(['a/', 'Z/', '_x', 'A.txt', 'B.txt', 'b.txt', 'é.txt']);
    expect(compareListed({ type: 'file', name: 'a' }, { type: 'file', name: 'A' })).toBe(1);
  });

  it('skips the §002 names at any depth, and the excluded folder', async () => {
    await setup({
      'node_modules/x.js': '',
      'src/target/out': '',
      'src/.DS_Store': '',
      'src/main.rs': '',
      'build/': '',
      '.agents/a/file': '',
      '.agentsx/kept': '',
    });
    expect(shape((await walk()).tree)).toEqual([['.agentsx/', [['kept']]], ['src/', [['main.rs']]]]);
    expect(shape((await walk({ skip: new Set(['src']) })).tree)).toEqual([
      ['.agentsx/', [['kept']]],
      ['build/', []],
      ['node_modules/', [['x.js']]],
    ]);
  });

  it('lists links without following them: inside ones as their target’s kind, the rest with a state', async () => {
    await setup({
      'src/lib.ts': 'lib',
      'src/up': { link: '..' },
      'to-src': { link: 'src' },
      'to-file': { link: 'src/lib.ts' },
      broken: { link: 'nowhere' },
      loop: { link: 'loop' },
      out: { link: '$OUTSIDE' },
      'out-file': { link: '$OUTSIDE/secret.txt' },
      'to-agents': { link: '.agents/x' },
      '.agents/x/secret': 'agent',
    });
    const { tree, folders } = await walk({ details: true });
    expect(shape(tree)).toEqual([
      ['out/', 'outside'],
      ['src/', [['up/', 'link'], ['lib.ts']]],
      ['to-agents/', 'outside'],
      ['to-src/', 'link'],
      ['broken', 'broken'],
      ['loop', 'broken'],
      ['out-file', 'outside'],
      ['to-file', 'link'],
    ]);
    // No link was entered: the walk opened exactly the two real folders.
    expect(folders.map((folder) => folder.path)).toEqual(['/', '/src']);
    const byName = Object.fromEntries(tree.map((entry) => [entry.name, entry]));
    // A link inside gets its target's details; a link out gets none (nothing outside is looked at).
    expect(byName['to-file']!.size).toBe(3);
    expect(byName['to-file']!.mtimeMs).toBe((await t.fs.stat(`${t.root}/src/lib.ts`)).mtimeMs);
    expect(byName['out-file']).toEqual({
      name: 'out-file',
      path: `${t.root}/out-file`,
      type: 'file',
      link: { to: `${t.outside}/secret.txt`, state: 'outside' },
    });
    expect(tree.filter(isReadableFile).map((entry) => entry.name)).toEqual(['to-file']);
  });

  it('gives sizes (files) and times only with `details`', async () => {
    await setup({ 'f.txt': 'four', 'd/': '' });
    const [d, file] = (await walk({ details: true })).tree;
    expect(file).toEqual({ name: 'f.txt', path: `${t.root}/f.txt`, type: 'file', size: 4, mtimeMs: (await t.fs.stat(`${t.root}/f.txt`)).mtimeMs });
    expect(d).toEqual({ name: 'd', path: `${t.root}/d`, type: 'dir', children: [], mtimeMs: (await t.fs.stat(`${t.root}/d`)).mtimeMs });
    expect((await walk()).tree[1]).toEqual({ name: 'f.txt', path: `${t.root}/f.txt`, type: 'file' });
  });

  it('reads nothing more once the consumer stops', async () => {
    await setup({ 'a/x': '', 'b/y': '', 'c/z': '' });
    const spy = instrumented(t.fs);
    const place = await treePlace(spy.fs, t.root, `${t.root}/.agents`);
    for await (const folder of walkListing(place, t.root, { maxDepth: Infinity, maxEntries: Infinity })) {
      expect(folder.depth).toBe(0);
      break;
    }
    expect(spy.calls.readdir).toBe(1);
  });

  it('throws the top folder’s own failure', async () => {
    await setup({ 'f.txt': '' });
    const failure = async (top: string) => {
      try {
        await walk({}, top);
      } catch (error) {
        return isFsError(error) ? error.code : error;
      }
      return 'no error';
    };
    expect(await failure(`${t.root}/missing`)).toBe('not-found');
    expect(await failure(`${t.root}/f.txt`)).toBe('not-directory');
  });

  if (backend === 'memory') {
    it('leaves a folder it cannot read closed, and goes on', async () => {
      await setup({ 'locked/secret': '', 'open/file': '' });
      await t.fs.chmod(`${t.root}/locked`, 0o000);
      expect(shape((await walk()).tree)).toEqual([['locked/'], ['open/', [['file']]]]);
    });
  }

  if (backend === 'node') {
    it('lists a FIFO as `other`, which is no readable file', async () => {
      await setup({ 'f.txt': '' });
      makeFifo(`${t.root}/pipe`);
      const { tree } = await walk();
      expect(tree.map((entry) => [entry.name, entry.type])).toEqual([
        ['f.txt', 'file'],
        ['pipe', 'other'],
      ]);
      expect(tree.filter(isReadableFile).map((entry) => entry.name)).toEqual(['f.txt']);
    });
  }
});
