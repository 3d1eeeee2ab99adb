import { afterEach, describe, expect, it } from 'vitest';
import { isFsError } from '../../../adapters/fs/fs-error.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { createIgnoreRules } from '../../../core/ignore/ignore-rules.ts';
import type { TreeEntry } from '../../../core/tree/tree-entry.ts';
import { treePlace } from '../../../core/tree/tree-place.ts';
import { walkTree } from '../../../core/tree/walk-tree.ts';
import { BACKENDS, buildTree, seedTree, type BuiltTree, type Seed } from '../../support/backends.ts';

const ROOT_GITIGNORE = 'dist/\n*.log\n!keep.log\n';

/** Every rule at once: ignore sources, a re-included folder, a virtualenv, each kind of link, the agents folder. */
const FULL: Seed = {
  'b.txt': 'bb',
  'a.md': 'a',
  '.gitignore': ROOT_GITIGNORE,
  'app.log': 'log',
  'keep.log': 'k',
  '.git/HEAD': 'ref: refs/heads/main\n',
  'node_modules/react/index.js': '',
  'dist/out.js': '',
  'docs/guide.md': 'gg',
  'env/pyvenv.cfg': 'home = /usr/bin\n',
  'env/lib/site.py': '',
  'src/.gitignore': '!dist/\n',
  'src/index.ts': 'x1234',
  'src/dist/bundle.js': 'bun',
  'src/lib/util.ts': 'u',
  'links/to-file': { link: '../b.txt' },
  'links/to-docs': { link: '../docs' },
  'links/broken': { link: 'nowhere' },
  'links/loop': { link: 'loop' },
  'links/outside': { link: '../..' }, // the folder holding the root
  'links/up': { link: '..' },
  'links/to-agents': { link: '../.agents/x' },
  'links/to-src-lib': { link: '../src/lib' },
  '.agents/x/secret.txt': 'agent copy',
};

const file = (path: string, size: number, extra: Partial<TreeEntry> = {}): TreeEntry => ({
  name: path.slice(path.lastIndexOf('/') + 1),
  path,
  type: 'file',
  size,
  ...extra,
});
const dir = (path: string, extra: Partial<TreeEntry> = {}): TreeEntry => ({
  name: path.slice(path.lastIndexOf('/') + 1),
  path,
  type: 'dir',
  ...extra,
});

const FULL_TREE: TreeEntry[] = [
  dir('.git', { ignored: true }),
  dir('dist', { ignored: true }),
  dir('docs', { children: [file('docs/guide.md', 2)] }),
  dir('env', { ignored: true }),
  dir('links', {
    children: [
      dir('links/outside', { link: { to: '../..', state: 'outside' } }),
      dir('links/to-agents', { link: { to: '../.agents/x', state: 'outside' } }),
      dir('links/to-docs', { link: { to: '../docs' } }), // docs is already open: listed, not entered
      dir('links/to-src-lib', { link: { to: '../src/lib' }, children: [file('links/to-src-lib/util.ts', 1)] }),
      dir('links/up', { link: { to: '..' } }), // the folder above: a cycle, not entered
      { name: 'broken', path: 'links/broken', type: 'file', link: { to: 'nowhere', state: 'broken' } },
      { name: 'loop', path: 'links/loop', type: 'file', link: { to: 'loop', state: 'broken' } },
      file('links/to-file', 2, { link: { to: '../b.txt' } }),
    ],
  }),
  dir('node_modules', { ignored: true }),
  dir('src', {
    children: [
      dir('src/dist', { children: [file('src/dist/bundle.js', 3)] }), // re-included by src/.gitignore
      dir('src/lib', { children: [file('src/lib/util.ts', 1)] }), // real folder: opened although a link showed it
      file('src/.gitignore', '!dist/\n'.length),
      file('src/index.ts', 5),
    ],
  }),
  file('.gitignore', ROOT_GITIGNORE.length),
  file('a.md', 1),
  file('app.log', 3, { ignored: true }),
  file('b.txt', 2),
  file('keep.log', 1),
];

for (const backend of BACKENDS) {
  describe(`walkTree over ${backend}`, () => {
    let built: BuiltTree | undefined;
    afterEach(() => built?.cleanup());

    const walk = async (spec: Seed, budget = 5000, concurrency?: number) => {
      built = await buildTree(backend, spec);
      const place = await treePlace(built.fs, built.root, `${built.root}/.agents`);
      return walkTree(place, { budget, rules: createIgnoreRules(built.fs, built.root), concurrency });
    };

    it('lists every rule at once: ignore sources, links, cycles, the agents folder left out', async () => {
      expect(await walk(FULL)).toEqual({ tree: FULL_TREE, hidden: 0 });
    });

    it('gives the same answer whatever the read-ahead concurrency', async () => {
      const spec: Seed = {};
      for (let i = 0; i < 30; i++) for (let j = 0; j < (i % 7) + 1; j++) spec[`d${i}/e${j}/f${(i * j) % 5}.txt`] = 'x'.repeat(j);
      const one = await walk(spec, 120, 1);
      await built!.cleanup();
      const many = await walk(spec, 120, 32);
      expect(many).toEqual(one);
      expect(JSON.stringify(many)).toEqual(JSON.stringify(one)); // key order too
    });

    it('cuts the root at the budget, folders first, and counts the rest in hidden', async () => {
      expect(await walk({ 'z/a.txt': '', 'b.txt': '', 'a.txt': '', 'c.txt': '' }, 2)).toEqual({
        tree: [dir('z'), file('a.txt', 0)],
        hidden: 2,
      });
      await built!.cleanup();
      expect(await walk({ 'a.txt': '' }, 0)).toEqual({ tree: [], hidden: 1 });
    });

    it('leaves a folder closed when its entries do not all fit, and fills the budget with later ones', async () => {
      const spec: Seed = {
        'big/1': '', 'big/2': '', 'big/3': '',
        'small/1': '',
        'tiny/deep/x': '',
        'top.txt': '',
      };
      // 4 root entries, 2 left: big (3) does not fit, small (1) and tiny (1) do; tiny/deep (1) then does not.
      expect(await walk(spec, 6)).toEqual({
        tree: [
          dir('big'),
          dir('small', { children: [file('small/1', 0)] }),
          dir('tiny', { children: [dir('tiny/deep')] }),
          file('top.txt', 0),
        ],
        hidden: 0,
      });
    });

    it('opens breadth-first: a shallow folder gets the budget before a deeper one', async () => {
      const spec: Seed = { 'a/deep/1': '', 'a/deep/2': '', 'b/1': '', 'b/2': '' };
      // root 2 + a 1 + b 2 = 5; a/deep (2 entries) would need 7.
      expect(await walk(spec, 6)).toEqual({
        tree: [dir('a', { children: [dir('a/deep')] }), dir('b', { children: [file('b/1', 0), file('b/2', 0)] })],
        hidden: 0,
      });
    });

    it('shows an empty folder as opened with no children, until the budget is spent', async () => {
      expect(await walk({ 'e/': '', 'f.txt': '' }, 3)).toEqual({
        tree: [dir('e', { children: [] }), file('f.txt', 0)],
        hidden: 0,
      });
      await built!.cleanup();
      // Spent by the root: the walk stops, and even an empty folder stays closed.
      expect(await walk({ 'e/': '', 'f.txt': '' }, 2)).toEqual({ tree: [dir('e'), file('f.txt', 0)], hidden: 0 });
    });

    it('never enters a link to the root or a link to a link-opened folder twice', async () => {
      const spec: Seed = { 'p/x': '', 'l1': { link: 'p' }, 'l2': { link: './p' }, 'self': { link: '.' } };
      expect(await walk(spec)).toEqual({
        tree: [
          dir('l1', { link: { to: 'p' }, children: [file('l1/x', 0)] }),
          dir('l2', { link: { to: './p' } }),
          dir('p', { children: [file('p/x', 0)] }),
          dir('self', { link: { to: '.' } }),
        ],
        hidden: 0,
      });
    });

    it('matches links by their target kind for ignore rules: a linked folder can be ignored', async () => {
      const spec: Seed = { '.gitignore': 'out/\n', 'real/a': '', 'out': { link: 'real' } };
      expect((await walk(spec)).tree).toEqual([
        dir('out', { ignored: true, link: { to: 'real' } }),
        dir('real', { children: [file('real/a', 0)] }),
        file('.gitignore', 5),
      ]);
    });

    it('throws the root’s own failure (an FsError)', async () => {
      built = await buildTree(backend, {});
      const place = await treePlace(built.fs, `${built.root}/missing`, `${built.root}/.agents`);
      const error = await walkTree(place, { budget: 10, rules: createIgnoreRules(built.fs, place.root) }).catch((e: unknown) => e);
      expect(isFsError(error, 'not-found')).toBe(true);
    });
  });
}

describe('walkTree: an unreadable folder stays closed', () => {
  it('on the memory backend (permissions enforced)', async () => {
    const fs = new MemoryFileSystem();
    await seedTree(fs, '/ws', { 'locked/secret': 's', 'open/a': '' });
    await fs.chmod('/ws/locked', 0o000);
    const place = await treePlace(fs, '/ws', '/ws/.agents');
    expect(await walkTree(place, { budget: 100, rules: createIgnoreRules(fs, '/ws') })).toEqual({
      tree: [dir('locked'), dir('open', { children: [file('open/a', 0)] })],
      hidden: 0,
    });
  });
});

describe('walkTree: bounded work', () => {
  it('never stats the files of a folder it leaves closed, and reads no folder once the budget is spent', async () => {
    const seed: Record<string, string> = { '/ws/a/x': '' };
    for (let i = 0; i < 2000; i++) seed[`/ws/big/f${i}`] = '';
    for (let i = 0; i < 50; i++) seed[`/ws/z${i}/f`] = '';
    const memory = new MemoryFileSystem(seed);
    const calls = { stat: 0, readdir: 0 };
    const fs = new Proxy(memory, {
      get(target, key, receiver) {
        if (key === 'stat' || key === 'readdir') calls[key]++;
        const value = Reflect.get(target, key, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const place = await treePlace(fs, '/ws', '/ws/.agents');
    const { tree } = await walkTree(place, { budget: 53, rules: createIgnoreRules(fs, '/ws'), concurrency: 4 });
    // 52 root folders, then a/ (1 entry) fits; big/ (2000) does not; the budget is spent after a/.
    expect(tree.filter((e) => e.children !== undefined).map((e) => e.name)).toEqual(['a']);
    expect(calls.stat).toBe(1); // a/x's size: never one of big/'s 2000 files
    // The root, a/, big/, and at most the read-ahead window (4) past the point the budget ran out.
    expect(calls.readdir).toBeLessThanOrEqual(3 + 4);
  });
});

describe('walkTree without sizes (the resolve walk)', () => {
  it('lists files without size', async () => {
    const fs = new MemoryFileSystem({ '/ws/a/b.txt': 'bbb' });
    const place = await treePlace(fs, '/ws', '/ws/.agents');
    expect(await walkTree(place, { budget: 100, rules: createIgnoreRules(fs, '/ws'), sizes: false })).toEqual({
      tree: [{ name: 'a', path: 'a', type: 'dir', children: [{ name: 'b.txt', path: 'a/b.txt', type: 'file' }] }],
      hidden: 0,
    });
  });
});
