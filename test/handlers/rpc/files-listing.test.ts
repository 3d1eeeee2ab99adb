import { afterEach, describe, expect, it } from 'vitest';
import { BACKENDS, type Seed } from '../../support/backends.ts';
import { failed, ok, rpcFiles, type RpcFiles } from './files-fixture.ts';

const seed: Seed = {
  'README.md': '# readme',
  'alpha.ts': 'a',
  'Beta.ts': 'bb',
  '.env': 'X=1',
  Makefile: 'all:',
  'archive.tar.gz': 'gz',
  'src/index.ts': 'index',
  'src/util/deep/deeper/leaf.txt': 'leaf',
  'Docs/guide.md': 'guide',
  'empty/': '',
  // The §002 skip list, at the top and deeper, folders and files.
  'node_modules/pkg/index.js': 'x',
  '.git/HEAD': 'ref',
  'dist/out.js': 'x',
  '.DS_Store': 'x',
  'src/__pycache__/m.pyc': 'x',
  'src/util/vendor/lib.php': 'x',
  'bin/tool': 'x',
  'Pods/p': 'x',
  // The agents' copies are never listed.
  '.agents/someone/file.txt': 'x',
  'link-dir': { link: 'src' },
  'link-file': { link: 'README.md' },
  broken: { link: 'nowhere' },
  escape: { link: '$OUTSIDE' },
};

interface FileNode {
  name: string;
  path: string;
  isDirectory: boolean;
  children?: FileNode[];
  extension?: string;
  size?: number;
  modified?: number;
}

describe.each(BACKENDS)('/ws read_directory and list_files (%s)', (backend) => {
  let f: RpcFiles;
  afterEach(() => f.cleanup());
  const setup = async (extra: Seed = {}) => (f = await rpcFiles(backend, { ...seed, ...extra }));

  /** The node `read_directory` must give for `rel`, its size and time read from the backend directly. */
  async function node(rel: string, more: Partial<FileNode> = {}): Promise<FileNode> {
    const stat = await f.fs.stat(f.at(rel));
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    const base: FileNode = { name, path: f.at(rel), isDirectory: stat.type === 'dir' };
    if (stat.type !== 'dir') base.size = stat.size;
    return { ...base, modified: Math.floor(stat.mtimeMs / 1000), ...more };
  }
  const dir = (rel: string, children?: FileNode[]) => node(rel, children ? { children } : {});
  const file = (rel: string, extension?: string) => node(rel, extension ? { extension } : {});

  async function expectedTree(): Promise<FileNode[]> {
    return [
      await dir('Docs', [await file('Docs/guide.md', 'md')]),
      await dir('empty', []),
      // A link leaving the workspace: its kind, nothing else.
      { name: 'escape', path: f.at('escape'), isDirectory: true },
      // A link to a folder inside: listed as a folder, left closed (opening it is another read_directory).
      await dir('link-dir'),
      await dir('src', [
        await dir('src/util', [await dir('src/util/deep', [await dir('src/util/deep/deeper')])]),
        await file('src/index.ts', 'ts'),
      ]),
      await file('.env'),
      await file('alpha.ts', 'ts'),
      await file('archive.tar.gz', 'gz'),
      await file('Beta.ts', 'ts'),
      { name: 'broken', path: f.at('broken'), isDirectory: false },
      // A link to a file inside: the target's size and time, under the link's own name.
      await file('link-file'),
      await file('Makefile'),
      await file('README.md', 'md'),
    ];
  }

  describe('read_directory', () => {
    it('lists three levels below the top by default: folders first, names case-insensitively, the skip list left out', async () => {
      await setup();
      const tree = await expectedTree();
      expect(await f.reply('read_directory', { path: f.root })).toEqual(ok(tree));
      // Root-relative spellings name the same folder; a mistyped maxDepth counts as absent (the default, 3).
      for (const maxDepth of ['2', -1, 1.5, null, 3]) {
        expect(await f.reply('read_directory', { path: '', maxDepth }), String(maxDepth)).toEqual(ok(tree));
      }
    });

    it('counts depth from 0: maxDepth 0 is the top entries only, every folder closed', async () => {
      await setup();
      const top = await f.reply('read_directory', { path: f.root, maxDepth: 0 });
      const strip = (nodes: FileNode[]) => nodes.map(({ children: _children, ...rest }) => rest);
      expect(top).toEqual(ok(strip(await expectedTree())));
      const one = (await f.reply('read_directory', { path: 'src', maxDepth: 1 })).result as FileNode[];
      expect(one).toEqual([
        await dir('src/util', [await dir('src/util/deep')]),
        await file('src/index.ts', 'ts'),
      ]);
    });

    it('lists a folder the skip list hides when asked for it by name, and a folder through a link at the resolved path', async () => {
      await setup();
      expect(await f.reply('read_directory', { path: 'node_modules' })).toEqual(
        ok([await dir('node_modules/pkg', [await file('node_modules/pkg/index.js', 'js')])]),
      );
      const viaLink = (await f.reply('read_directory', { path: 'link-dir', maxDepth: 0 })).result as FileNode[];
      expect(viaLink.map((n) => n.path)).toEqual([f.at('src/util'), f.at('src/index.ts')]);
    });

    it('never lists deeper than 12 levels, whatever maxDepth asks', async () => {
      const chain: Seed = {};
      let at = 'chain';
      for (let level = 0; level <= 14; level++) {
        chain[`${at}/file-${level}.txt`] = String(level);
        at += `/l${level}`;
      }
      await setup(chain);
      const deepest = (nodes: FileNode[]): { depth: number; names: string[]; closed: boolean } => {
        let depth = 0;
        let level = nodes;
        for (;;) {
          const folder = level.find((n) => n.isDirectory);
          if (!folder?.children) return { depth, names: level.map((n) => n.name), closed: folder !== undefined };
          level = folder.children;
          depth++;
        }
      };
      const tree = (await f.reply('read_directory', { path: 'chain', maxDepth: 100 })).result as FileNode[];
      // Depth d holds file-d.txt and the folder ld: depth 12 is listed, its folder l12 closed; file-13 is not.
      expect(deepest(tree)).toEqual({ depth: 12, names: ['l12', 'file-12.txt'], closed: true });
      expect(await f.reply('read_directory', { path: 'chain', maxDepth: 12 })).toEqual(ok(tree));
      const files = (await f.reply('list_files', { path: 'chain' })).result as string[];
      expect(files).toHaveLength(13);
      expect(files.at(-1)).toBe('l0/l1/l2/l3/l4/l5/l6/l7/l8/l9/l10/l11/file-12.txt');
    });

    it('says `Path does not exist`, `Not a folder`, and refuses escapes and the agents folder', async () => {
      await setup();
      expect(await f.reply('read_directory', { path: 'missing' })).toEqual(failed('Path does not exist'));
      expect(await f.reply('read_directory', { path: 'broken' })).toEqual(failed('Path does not exist'));
      expect(await f.reply('read_directory', { path: 'README.md' })).toEqual(failed('Not a folder: README.md'));
      for (const path of ['..', '../..', f.outside, 'escape', '/']) {
        expect(await f.reply('read_directory', { path }), path).toEqual(failed('path is outside the workspace'));
      }
      expect(await f.reply('read_directory', { path: '.agents' })).toEqual(
        failed('not part of the workspace tree (the agents folder): .agents'),
      );
      expect(await f.reply('read_directory', { maxDepth: 1 })).toEqual(failed("invalid arg 'path': missing"));
      expect(await f.reply('read_directory', { path: 1 })).toEqual(failed("invalid arg 'path': expected string, got number"));
    });
  });

  describe('list_files', () => {
    it('lists the readable files below the folder, relative to it and sorted, the skip list left out', async () => {
      await setup();
      const all = [
        '.env',
        'Beta.ts',
        'Docs/guide.md',
        'Makefile',
        'README.md',
        'alpha.ts',
        'archive.tar.gz',
        'link-file',
        'src/index.ts',
        'src/util/deep/deeper/leaf.txt',
      ];
      expect(await f.reply('list_files', { path: f.root })).toEqual(ok(all));
      expect(await f.reply('list_files', { path: '' })).toEqual(ok(all));
      expect(await f.reply('list_files', { path: f.at('src') })).toEqual(ok(['index.ts', 'util/deep/deeper/leaf.txt']));
      expect(await f.reply('list_files', { path: 'empty' })).toEqual(ok([]));
    });

    it('fails as read_directory does', async () => {
      await setup();
      expect(await f.reply('list_files', { path: 'missing' })).toEqual(failed('Path does not exist'));
      expect(await f.reply('list_files', { path: 'README.md' })).toEqual(failed('Not a folder: README.md'));
      expect(await f.reply('list_files', { path: '../' })).toEqual(failed('path is outside the workspace'));
      expect(await f.reply('list_files', { path: `${f.outside}` })).toEqual(failed('path is outside the workspace'));
      expect(await f.reply('list_files', { path: 'escape' })).toEqual(failed('path is outside the workspace'));
      expect(await f.reply('list_files', {})).toEqual(failed("invalid arg 'path': missing"));
    });
  });
});

describe('/ws listings stop past 20 000 entries (memory backend: one bounded fixture)', () => {
  let f: RpcFiles;
  afterEach(() => f.cleanup());

  it('opens a folder only if all of it fits, and fills the rest of the budget with the next folders', async () => {
    // 3 top entries + 19 997 in big/ = exactly 20 000: big/ fits and is opened; small/ then finds the budget spent.
    const bigSeed: Seed = { 'a.txt': 'a', 'small/x.txt': 'x', 'small/y.txt': 'y' };
    for (let i = 0; i < 19_997; i++) bigSeed[`big/f${String(i).padStart(5, '0')}.txt`] = '';
    f = await rpcFiles('memory', bigSeed);

    const listed = async () => (await f.reply('read_directory', { path: '' })).result as FileNode[];
    let tree = await listed();
    expect(tree.map((n) => [n.name, n.children?.length])).toEqual([
      ['big', 19_997],
      ['small', undefined],
      ['a.txt', undefined],
    ]);
    let files = (await f.reply('list_files', { path: '' })).result as string[];
    expect(files).toEqual(['a.txt', ...Array.from({ length: 19_997 }, (_, i) => `big/f${String(i).padStart(5, '0')}.txt`)]);

    // One entry more in big/: it no longer fits, stays closed (never half-listed), and small/ is opened.
    expect(await f.reply('write_file', { path: 'big/one-more.txt', content: '' })).toEqual(ok(null));
    tree = await listed();
    expect(tree.map((n) => [n.name, n.children?.map((c) => c.name)])).toEqual([
      ['big', undefined],
      ['small', ['x.txt', 'y.txt']],
      ['a.txt', undefined],
    ]);
    files = (await f.reply('list_files', { path: '' })).result as string[];
    expect(files).toEqual(['a.txt', 'small/x.txt', 'small/y.txt']);
  });
});
