import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { OverlayFileSystem } from '../../../adapters/fs/overlay-file-system.ts';
import { loadWhiteoutFile, WhiteoutSet } from '../../../adapters/fs/overlay/whiteouts.ts';
import { runFileSystemContract } from './contract.ts';

const decoder = new TextDecoder();

/**
 * The contract runs unchanged over the overlay in four setups, each with a fresh, empty-looking root:
 * - memory, the agent's tree under the shared root's hidden `.agents` folder (the daemon's own layout);
 * - disk, the same layout in a temp folder;
 * - two separate memory backends as the layers (so nothing can lean on one backend's `copy`);
 * - memory, over a lower layer full of entries the contract's names collide with, all whited out: every
 *   write lands on a whiteout and every folder made there must be opaque.
 * - memory, the contract root a folder only the lower layer has (every first write copies folders up).
 */
runFileSystemContract('OverlayFileSystem over MemoryFileSystem', async () => {
  const fs = new MemoryFileSystem();
  await fs.mkdir('/ws/.agents/a1', { recursive: true });
  const overlay = new OverlayFileSystem({
    lower: fs,
    upper: fs,
    root: '/ws',
    upperRoot: '/ws/.agents/a1',
    whiteouts: new WhiteoutSet(),
    hidden: ['/ws/.agents'],
  });
  return { fs: overlay, root: '/ws', cleanup: async () => {} };
});

// The same contract where an agent's view uses it: confined to the overlaid root (FileSystem.confine).
runFileSystemContract('OverlayFileSystem over MemoryFileSystem, confined to its root', async () => {
  const fs = new MemoryFileSystem();
  await fs.mkdir('/ws/.agents/a1', { recursive: true });
  const overlay = new OverlayFileSystem({ lower: fs, upper: fs, root: '/ws', upperRoot: '/ws/.agents/a1', whiteouts: new WhiteoutSet(), hidden: ['/ws/.agents'] });
  overlay.confine('/ws');
  return { fs: overlay, root: '/ws', cleanup: async () => {} };
});

runFileSystemContract('OverlayFileSystem over NodeFileSystem', async () => {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-overlay-')));
  await mkdir(join(dir, '.agents', 'a1'), { recursive: true });
  const fs = new NodeFileSystem();
  const overlay = new OverlayFileSystem({
    lower: fs,
    upper: fs,
    root: dir,
    upperRoot: join(dir, '.agents', 'a1'),
    whiteouts: await loadWhiteoutFile(fs, join(dir, '.agents', '.state', 'a1.whiteouts.json')),
    hidden: [join(dir, '.agents')],
  });
  return { fs: overlay, root: dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
});

runFileSystemContract('OverlayFileSystem over two MemoryFileSystems', async () => {
  const lower = new MemoryFileSystem();
  await lower.mkdir('/ws');
  const upper = new MemoryFileSystem();
  await upper.mkdir('/agent');
  const overlay = new OverlayFileSystem({ lower, upper, root: '/ws', upperRoot: '/agent', whiteouts: new WhiteoutSet() });
  return { fs: overlay, root: '/ws', cleanup: async () => {} };
});

/** Names the contract uses at its root: each one exists in the lower layer, and is whited out. */
const COLLIDING = ['a', 'b', 'a.txt', 'b.txt', 'dir', 'd', 'file', 'file.txt', 'f', 'src', 'dst', 'full', 'real', 'alias',
  'target', 'target.txt', 'target-dir', 'link', 'x', 'new', 'tree', 'outside', 'kept', 'letters', 'big', 'many', 'empty'];

runFileSystemContract('OverlayFileSystem over whited-out lower entries', async () => {
  const fs = new MemoryFileSystem();
  for (const name of COLLIDING) {
    await fs.write(`/ws/${name}/inner.txt`, `lower ${name}`, { mkdirs: true });
    await fs.write(`/ws/${name}/deeper/x`, 'x', { mkdirs: true });
  }
  await fs.mkdir('/agents/a1', { recursive: true });
  const overlay = new OverlayFileSystem({
    lower: fs,
    upper: fs,
    root: '/ws',
    upperRoot: '/agents/a1',
    whiteouts: new WhiteoutSet(COLLIDING),
  });
  return { fs: overlay, root: '/ws', cleanup: async () => {} };
});

runFileSystemContract('OverlayFileSystem, contract root only in the lower layer', async () => {
  const fs = new MemoryFileSystem({ '/ws/shared.txt': 'shared' });
  await fs.mkdir('/ws/proj/work', { recursive: true });
  await fs.mkdir('/agents/a1', { recursive: true });
  const overlay = new OverlayFileSystem({ lower: fs, upper: fs, root: '/ws', upperRoot: '/agents/a1', whiteouts: new WhiteoutSet() });
  return { fs: overlay, root: '/ws/proj/work', cleanup: async () => {} };
});

interface Layout {
  /** The backend both layers live on (the shared tree's FileSystem). */
  fs: FileSystem;
  overlay: OverlayFileSystem;
  /** The overlaid root and the agent's tree. */
  root: string;
  upperRoot: string;
  whiteoutFile: string;
  /** A fresh overlay over the same layers, whiteouts read back from their file (a daemon restart). */
  reopen(): Promise<OverlayFileSystem>;
  cleanup(): Promise<void>;
}

const SHARED: Record<string, string> = {
  'README.md': 'shared readme',
  'src/app.ts': 'shared app',
  'src/util.ts': 'shared util',
  'src/deep/x.ts': 'shared x',
  'node_modules/pkg/index.js': 'shared pkg',
  '.agents/other/secret.txt': "another agent's copy",
};
const AGENT: Record<string, string> = { 'src/app.ts': 'agent app', 'src/mine.ts': 'agent only' };

async function layout(kind: 'memory' | 'node'): Promise<Layout> {
  let fs: FileSystem;
  let root: string;
  let cleanup = async () => {};
  if (kind === 'memory') {
    fs = new MemoryFileSystem();
    root = '/ws';
  } else {
    root = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-overlay-')));
    fs = new NodeFileSystem();
    cleanup = () => rm(root, { recursive: true, force: true });
  }
  const upperRoot = `${root}/.agents/a1`;
  const whiteoutFile = `${root}/.agents/.state/a1.whiteouts.json`;
  for (const [rel, content] of Object.entries(SHARED)) await fs.write(`${root}/${rel}`, content, { mkdirs: true });
  for (const [rel, content] of Object.entries(AGENT)) await fs.write(`${upperRoot}/${rel}`, content, { mkdirs: true });
  const open = async () =>
    new OverlayFileSystem({
      lower: fs,
      upper: fs,
      root,
      upperRoot,
      whiteouts: await loadWhiteoutFile(fs, whiteoutFile),
      hidden: [`${root}/.agents`],
    });
  return { fs, overlay: await open(), root, upperRoot, whiteoutFile, reopen: open, cleanup };
}

async function text(fs: FileSystem, path: string): Promise<string> {
  return decoder.decode(await fs.read(path));
}

async function names(fs: FileSystem, path: string): Promise<string[]> {
  return (await fs.readdir(path)).map((entry) => entry.name).sort();
}

for (const kind of ['memory', 'node'] as const) {
  describe(`OverlayFileSystem specifics (${kind})`, () => {
    let l: Layout;
    let overlay: OverlayFileSystem;
    let root: string;
    beforeEach(async () => {
      l = await layout(kind);
      ({ overlay, root } = l);
    });
    afterEach(async () => {
      await l.cleanup();
    });

    it("reads the agent's file where it has one and the shared file where it does not; layerOf says which", async () => {
      expect(await text(overlay, `${root}/src/app.ts`)).toBe('agent app');
      expect(await text(overlay, `${root}/src/util.ts`)).toBe('shared util');
      expect(await text(overlay, `${root}/node_modules/pkg/index.js`)).toBe('shared pkg');
      expect(await overlay.layerOf(`${root}/src/app.ts`)).toBe('upper');
      expect(await overlay.layerOf(`${root}/src/mine.ts`)).toBe('upper');
      expect(await overlay.layerOf(`${root}/src/util.ts`)).toBe('lower');
      expect(await overlay.layerOf(`${root}/src/deep`)).toBe('lower');
      expect(await overlay.layerOf(`${root}/missing.txt`)).toBeUndefined();
      expect(await overlay.layerOf(`${root}/missing/deeper.txt`)).toBeUndefined();
      expect((await overlay.stat(`${root}/src/app.ts`)).size).toBe('agent app'.length);
    });

    it('merges listings, the agent’s entries winning by name, and never shows the agents folder', async () => {
      expect(await names(overlay, root)).toEqual(['README.md', 'node_modules', 'src']);
      expect((await overlay.readdir(`${root}/src`)).sort((a, b) => (a.name < b.name ? -1 : 1))).toEqual([
        { name: 'app.ts', type: 'file' },
        { name: 'deep', type: 'dir' },
        { name: 'mine.ts', type: 'file' },
        { name: 'util.ts', type: 'file' },
      ]);
      await expect(overlay.stat(`${root}/.agents`)).rejects.toMatchObject({ code: 'not-found' });
      await expect(overlay.read(`${root}/.agents/other/secret.txt`)).rejects.toMatchObject({ code: 'not-found' });
      await expect(overlay.readdir(`${root}/.agents/other`)).rejects.toMatchObject({ code: 'not-found' });
    });

    it('a cut listing holds distinct entries and never repeats a name across the layers', async () => {
      const all = await names(overlay, `${root}/src`);
      for (let limit = 0; limit <= all.length + 1; limit++) {
        const some = (await overlay.readdir(`${root}/src`, { limit })).map((entry) => entry.name);
        expect(some).toHaveLength(Math.min(limit, all.length));
        expect(new Set(some).size).toBe(some.length);
        for (const name of some) expect(all).toContain(name);
      }
    });

    it('writes go to the agent’s tree only: a shared file is copied up, folders are made there as needed', async () => {
      await overlay.write(`${root}/src/util.ts`, 'agent util');
      await overlay.write(`${root}/src/deep/new/y.ts`, 'agent y', { mkdirs: true });
      expect(await text(overlay, `${root}/src/util.ts`)).toBe('agent util');
      expect(await text(overlay, `${root}/src/deep/new/y.ts`)).toBe('agent y');
      expect(await overlay.layerOf(`${root}/src/util.ts`)).toBe('upper');
      // The shared tree is untouched; the agent's tree holds exactly what it wrote.
      expect(await text(l.fs, `${root}/src/util.ts`)).toBe('shared util');
      await expect(l.fs.stat(`${root}/src/deep/new`)).rejects.toMatchObject({ code: 'not-found' });
      expect(await text(l.fs, `${l.upperRoot}/src/util.ts`)).toBe('agent util');
      expect(await text(l.fs, `${l.upperRoot}/src/deep/new/y.ts`)).toBe('agent y');
      expect(await names(l.fs, `${l.upperRoot}/src/deep`)).toEqual(['new']);
      // Still merged: the shared x.ts shows beside the agent's new folder.
      expect(await names(overlay, `${root}/src/deep`)).toEqual(['new', 'x.ts']);
    });

    it('a removed shared file stays removed (a whiteout kept beside the copy, not in it) across a reopen', async () => {
      await overlay.remove(`${root}/src/util.ts`);
      await overlay.remove(`${root}/src/app.ts`); // the agent's copy and the shared file under it
      await expect(overlay.stat(`${root}/src/util.ts`)).rejects.toMatchObject({ code: 'not-found' });
      await expect(overlay.stat(`${root}/src/app.ts`)).rejects.toMatchObject({ code: 'not-found' });
      expect(await names(overlay, `${root}/src`)).toEqual(['deep', 'mine.ts']);
      expect(await text(l.fs, `${root}/src/util.ts`)).toBe('shared util');
      expect(await text(l.fs, `${root}/src/app.ts`)).toBe('shared app');
      expect(JSON.parse(await text(l.fs, l.whiteoutFile))).toEqual(['src/app.ts', 'src/util.ts']);
      expect(await names(l.fs, l.upperRoot)).toEqual(['src']);
      expect(await names(l.fs, `${l.upperRoot}/src`)).toEqual(['mine.ts']);

      const reopened = await l.reopen();
      await expect(reopened.stat(`${root}/src/util.ts`)).rejects.toMatchObject({ code: 'not-found' });
      expect(await names(reopened, `${root}/src`)).toEqual(['deep', 'mine.ts']);
      // Writing it again brings back the agent's own file, not the shared one.
      await reopened.write(`${root}/src/util.ts`, 'agent util again');
      expect(await text(reopened, `${root}/src/util.ts`)).toBe('agent util again');
    });

    it('a folder removed and made again is opaque: nothing of the shared folder shows through', async () => {
      await overlay.remove(`${root}/src`, { recursive: true });
      await expect(overlay.stat(`${root}/src`)).rejects.toMatchObject({ code: 'not-found' });
      expect(await names(overlay, root)).toEqual(['README.md', 'node_modules']);
      await overlay.mkdir(`${root}/src`);
      expect(await overlay.readdir(`${root}/src`)).toEqual([]);
      await expect(overlay.stat(`${root}/src/util.ts`)).rejects.toMatchObject({ code: 'not-found' });
      await overlay.write(`${root}/src/deep/x.ts`, 'fresh', { mkdirs: true });
      expect(await names(overlay, `${root}/src/deep`)).toEqual(['x.ts']);
      expect(JSON.parse(await text(l.fs, l.whiteoutFile))).toEqual(['src']);
      expect(await names(l.fs, `${root}/src`)).toEqual(['app.ts', 'deep', 'util.ts']);
    });

    it('a non-empty merged folder is not-empty without recursive, even when only the shared part holds entries', async () => {
      await overlay.remove(`${root}/src/app.ts`);
      await overlay.remove(`${root}/src/mine.ts`);
      await expect(overlay.remove(`${root}/src`)).rejects.toMatchObject({ code: 'not-empty', path: `${root}/src` });
      expect(await names(overlay, `${root}/src`)).toEqual(['deep', 'util.ts']);
    });

    it('renaming a merged folder moves all of it into the agent’s tree and leaves the shared tree alone', async () => {
      await overlay.rename(`${root}/src`, `${root}/lib`);
      await expect(overlay.stat(`${root}/src`)).rejects.toMatchObject({ code: 'not-found' });
      expect(await names(overlay, `${root}/lib`)).toEqual(['app.ts', 'deep', 'mine.ts', 'util.ts']);
      expect(await text(overlay, `${root}/lib/app.ts`)).toBe('agent app');
      expect(await text(overlay, `${root}/lib/util.ts`)).toBe('shared util');
      expect(await text(overlay, `${root}/lib/deep/x.ts`)).toBe('shared x');
      expect(await overlay.layerOf(`${root}/lib/deep/x.ts`)).toBe('upper');
      expect(await names(l.fs, `${root}/src`)).toEqual(['app.ts', 'deep', 'util.ts']);
      expect(await names(overlay, root)).toEqual(['README.md', 'lib', 'node_modules']);
    });

    it('renaming over a shared folder replaces it entirely', async () => {
      await overlay.mkdir(`${root}/fresh`);
      await overlay.write(`${root}/fresh/only.txt`, 'only');
      await overlay.rename(`${root}/fresh`, `${root}/node_modules`, { overwrite: true });
      expect(await names(overlay, `${root}/node_modules`)).toEqual(['only.txt']);
      expect(await text(l.fs, `${root}/node_modules/pkg/index.js`)).toBe('shared pkg');
    });

    it('copying a merged folder copies what the view shows: both layers, minus whiteouts', async () => {
      await overlay.remove(`${root}/src/deep/x.ts`);
      await overlay.write(`${root}/src/deep/z.ts`, 'agent z');
      await overlay.copy(`${root}/src`, `${root}/copy`);
      expect(await names(overlay, `${root}/copy`)).toEqual(['app.ts', 'deep', 'mine.ts', 'util.ts']);
      expect(await names(overlay, `${root}/copy/deep`)).toEqual(['z.ts']);
      expect(await text(overlay, `${root}/copy/app.ts`)).toBe('agent app');
      expect(await text(overlay, `${root}/copy/util.ts`)).toBe('shared util');
      await expect(l.fs.stat(`${root}/copy`)).rejects.toMatchObject({ code: 'not-found' });
      // A shared file copied onto a shared file: the agent's layer gets the copy.
      await overlay.copy(`${root}/README.md`, `${root}/src/util.ts`, { overwrite: true });
      expect(await text(overlay, `${root}/src/util.ts`)).toBe('shared readme');
      expect(await text(l.fs, `${root}/src/util.ts`)).toBe('shared util');
    });

    it('writeAt on a shared file copies it up, then writes in place', async () => {
      const stat = await overlay.writeAt(`${root}/src/util.ts`, 7, new TextEncoder().encode('UTIL'));
      expect(stat.size).toBe('shared util'.length);
      expect(await text(overlay, `${root}/src/util.ts`)).toBe('shared UTIL');
      expect(await text(l.fs, `${root}/src/util.ts`)).toBe('shared util');
      await expect(overlay.writeAt(`${root}/README.md`, 99, new Uint8Array([1]))).rejects.toMatchObject({ code: 'invalid' });
      expect(await overlay.layerOf(`${root}/README.md`)).toBe('lower'); // refused before anything was copied up
    });

    it('a conditional write of a shared file wins once: a second writer with the same version is version-mismatch', async () => {
      const { version } = await overlay.stat(`${root}/src/util.ts`);
      const first = await overlay.write(`${root}/src/util.ts`, 'first', { ifVersion: version });
      await expect(overlay.write(`${root}/src/util.ts`, 'second', { ifVersion: version })).rejects.toMatchObject({
        code: 'version-mismatch',
        path: `${root}/src/util.ts`,
      });
      const [a, b] = await Promise.allSettled([
        overlay.write(`${root}/README.md`, 'one', { ifVersion: (await overlay.stat(`${root}/README.md`)).version }),
        overlay.write(`${root}/README.md`, 'two', { ifVersion: (await overlay.stat(`${root}/README.md`)).version }),
      ]);
      expect([a.status, b.status].sort()).toEqual(['fulfilled', 'rejected']);
      expect(['one', 'two']).toContain(await text(overlay, `${root}/README.md`));
      expect((await overlay.stat(`${root}/src/util.ts`)).version).toBe(first.version);
    });

    it('link text means what it means at the overlaid path, in both layers', async () => {
      // An agent's link to a shared-only folder, absolute in the shared tree's namespace.
      await overlay.symlink(`${root}/node_modules/pkg`, `${root}/pkg-link`);
      expect(await text(overlay, `${root}/pkg-link/index.js`)).toBe('shared pkg');
      expect(await overlay.realpath(`${root}/pkg-link/index.js`)).toBe(`${root}/node_modules/pkg/index.js`);
      // A shared relative link to a file the agent changed reads the agent's version.
      await l.fs.symlink('app.ts', `${root}/src/app-link`);
      expect(await text(overlay, `${root}/src/app-link`)).toBe('agent app');
      await overlay.write(`${root}/src/app-link`, 'through the shared link');
      expect(await text(overlay, `${root}/src/app.ts`)).toBe('through the shared link');
      expect(await text(l.fs, `${root}/src/app.ts`)).toBe('shared app');
      expect(await overlay.readlink(`${root}/src/app-link`)).toBe('app.ts');
    });

    it('an agent’s file where the shared tree has a folder hides the folder (nothing shows through a file)', async () => {
      await overlay.remove(`${root}/src/deep`, { recursive: true });
      await overlay.write(`${root}/src/deep`, 'a file now');
      expect((await overlay.stat(`${root}/src/deep`)).type).toBe('file');
      await expect(overlay.stat(`${root}/src/deep/x.ts`)).rejects.toMatchObject({ code: 'not-directory' });
    });

    it('errors name the overlaid path, never the agent’s tree', async () => {
      const error = await overlay.read(`${root}/src`).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'is-directory', path: `${root}/src` });
      expect((error as Error).message).not.toContain('.agents');
      await expect(overlay.write(`${root}/src/mine.ts/x`, 'x')).rejects.toMatchObject({ code: 'not-directory' });
      await expect(overlay.remove(root, { recursive: true })).rejects.toMatchObject({ code: 'invalid' });
      expect(await names(overlay, root)).toEqual(['README.md', 'node_modules', 'src']);
    });

    it('paths outside the overlaid root pass through to the shared FileSystem', async () => {
      const outside = kind === 'memory' ? '/elsewhere' : `${root}-outside`;
      try {
        await overlay.write(`${outside}/f.txt`, 'outside', { mkdirs: true });
        expect(await text(l.fs, `${outside}/f.txt`)).toBe('outside');
        expect(await overlay.layerOf(`${outside}/f.txt`)).toBe('lower');
        await overlay.rename(`${outside}/f.txt`, `${outside}/g.txt`);
        expect(await names(l.fs, outside)).toEqual(['g.txt']);
      } finally {
        await l.fs.remove(outside, { recursive: true }).catch(() => {});
      }
    });
  });
}

describe('OverlayFileSystem on disk', () => {
  it('a shared executable edited by the agent stays executable', async () => {
    const l = await layout('node');
    try {
      await l.fs.write(`${l.root}/run.sh`, '#!/bin/sh\necho shared\n');
      await l.fs.chmod(`${l.root}/run.sh`, 0o755);
      await l.overlay.write(`${l.root}/run.sh`, '#!/bin/sh\necho agent\n');
      const { stat } = await import('node:fs/promises');
      expect((await stat(`${l.upperRoot}/run.sh`)).mode & 0o777).toBe(0o755);
      expect(await readFile(`${l.root}/run.sh`, 'utf8')).toBe('#!/bin/sh\necho shared\n');
    } finally {
      await l.cleanup();
    }
  });

  it('a corrupt whiteout file is an io error, not an empty set', async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-overlay-')));
    try {
      await writeFile(join(dir, 'w.json'), '{not json');
      await expect(loadWhiteoutFile(new NodeFileSystem(), join(dir, 'w.json'))).rejects.toMatchObject({ code: 'io' });
      await writeFile(join(dir, 'w.json'), '["a", 3]');
      await expect(loadWhiteoutFile(new NodeFileSystem(), join(dir, 'w.json'))).rejects.toMatchObject({ code: 'io' });
      expect((await loadWhiteoutFile(new NodeFileSystem(), join(dir, 'missing.json'))).hides('a')).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('WhiteoutSet', () => {
  it('hides a path and everything below it, compacts covered entries, and undoes exactly', async () => {
    const saved: string[][] = [];
    const set = new WhiteoutSet(['a/b/c', 'x'], async (paths) => {
      saved.push(paths);
    });
    expect(set.hides('a/b/c/d')).toBe(true);
    expect(set.hides('a/b')).toBe(false);
    expect([...set.namesIn('a/b')]).toEqual(['c']);
    expect(set.anyBelow('a')).toBe(true);
    const undo = await set.add('a');
    expect(saved.at(-1)).toEqual(['a', 'x']);
    expect(set.hides('a/anything')).toBe(true);
    expect(await set.add('a/b')).toBeTypeOf('function'); // already hidden: nothing recorded
    expect(saved).toHaveLength(1);
    await undo();
    expect(saved.at(-1)).toEqual(['a/b/c', 'x']);
    expect(set.hides('a/b')).toBe(false);
    expect(set.hides('a/b/c')).toBe(true);
  });

  it('a failed save leaves the set as it was', async () => {
    const set = new WhiteoutSet([], async () => {
      throw new Error('disk full');
    });
    await expect(set.add('a')).rejects.toThrow('disk full');
    expect(set.hides('a')).toBe(false);
  });
});
