import * as nodeFs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { ObservedFileSystem, REPORTED_DESCENDANTS, type Observation } from '../../../adapters/fs/observed-file-system.ts';
import { runFileSystemContract } from './contract.ts';

// The decorator is transparent: the whole contract holds through it.
runFileSystemContract('ObservedFileSystem over MemoryFileSystem', async () => {
  const inner = new MemoryFileSystem();
  await inner.mkdir('/ws');
  return { fs: new ObservedFileSystem(inner, () => {}), root: '/ws', cleanup: async () => {} };
});

const encoder = new TextEncoder();

function streamOf(text: string): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(encoder.encode(text));
      controller.close();
    },
  });
}

interface Backend {
  name: string;
  make(): Promise<{ inner: FileSystem; root: string; cleanup(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: 'MemoryFileSystem',
    async make() {
      const inner = new MemoryFileSystem();
      await inner.mkdir('/ws');
      return { inner, root: '/ws', cleanup: async () => {} };
    },
  },
  {
    name: 'NodeFileSystem',
    async make() {
      const root = await nodeFs.realpath(await nodeFs.mkdtemp(join(tmpdir(), 'fs-observed-')));
      return { inner: new NodeFileSystem(), root, cleanup: () => nodeFs.rm(root, { recursive: true, force: true }) };
    },
  },
];

for (const backend of backends) {
  describe(`ObservedFileSystem over ${backend.name}: every mutation is reported exactly`, () => {
    let inner: FileSystem;
    let fs: ObservedFileSystem;
    let root: string;
    let cleanup: () => Promise<void>;
    let seen: Observation[];
    const p = (relative: string) => `${root}/${relative}`;
    const version = async (relative: string) => (await inner.lstat(p(relative))).version;
    const present = async (relative: string): Promise<Observation> => ({ absolutePath: p(relative), version: await version(relative) });
    const absent = (relative: string): Observation => ({ absolutePath: p(relative), absent: true });
    /** Sets up files through the backend itself, so nothing is reported. */
    const seed = async (files: Record<string, string>) => {
      for (const [relative, content] of Object.entries(files)) await inner.write(p(relative), content, { mkdirs: true });
    };

    beforeEach(async () => {
      ({ inner, root, cleanup } = await backend.make());
      seen = [];
      fs = new ObservedFileSystem(inner, (observation) => seen.push(observation));
    });
    afterEach(() => cleanup());

    it('write: the path with the version the write returned, reported before the write resolves', async () => {
      let reportedAtResolve = -1;
      const stat = await fs.write(p('a.txt'), 'hello').then((result) => {
        reportedAtResolve = seen.length;
        return result;
      });
      expect(reportedAtResolve).toBe(1);
      expect(seen).toEqual([{ absolutePath: p('a.txt'), version: stat.version }]);
      expect(stat.version).toBe(await version('a.txt'));
    });

    it('write through a link or a linked folder: the real path of what changed', async () => {
      await seed({ 'dir/target.txt': 'v1' });
      await inner.symlink('target.txt', p('dir/link.txt'));
      await inner.symlink('dir', p('alias'));
      await fs.write(p('dir/link.txt'), 'v2');
      await fs.write(p('alias/new.txt'), 'n');
      expect(seen).toEqual([await present('dir/target.txt'), await present('dir/new.txt')]);
    });

    it('writeStream and writeAt', async () => {
      const streamed = await fs.writeStream(p('s.txt'), streamOf('streamed'));
      const patched = await fs.writeAt(p('s.txt'), 8, encoder.encode('!'));
      expect(seen).toEqual([
        { absolutePath: p('s.txt'), version: streamed.version },
        { absolutePath: p('s.txt'), version: patched.version },
      ]);
      expect(patched.version).toBe(await version('s.txt'));
    });

    it('mkdir, chmod and symlink: the entry with its version after the call', async () => {
      await fs.mkdir(p('a/b'), { recursive: true });
      const afterMkdir = await present('a/b');
      await seed({ 'f.txt': 'x' });
      await fs.chmod(p('f.txt'), 0o600);
      const afterChmod = await present('f.txt');
      await fs.symlink('f.txt', p('link'));
      expect(seen).toEqual([afterMkdir, afterChmod, await present('link')]);
      expect((await inner.lstat(p('link'))).type).toBe('symlink'); // the link's own version, not its target's
    });

    it('remove: the entry as absent; a recursive removal also everything that was below it', async () => {
      await seed({ 'f.txt': 'x', 'd/a.txt': 'a', 'd/s/b.txt': 'b' });
      await fs.remove(p('f.txt'));
      expect(seen).toEqual([absent('f.txt')]);
      seen = [];
      await fs.remove(p('d'), { recursive: true });
      // Breadth first, then the removed folder itself last; within a folder, the backend's listing order.
      expect(seen.at(-1)).toEqual(absent('d'));
      expect(seen.slice(0, 2).map((o) => o.absolutePath).sort()).toEqual([p('d/a.txt'), p('d/s')]);
      expect(seen.slice(2)).toEqual([absent('d/s/b.txt'), absent('d')]);
    });

    it(`a removed folder's contents are reported one by one up to ${REPORTED_DESCENDANTS} entries`, async () => {
      const files: Record<string, string> = {};
      for (let i = 0; i < REPORTED_DESCENDANTS + 44; i++) files[`big/f${i}`] = '';
      await seed(files);
      await fs.remove(p('big'), { recursive: true });
      expect(seen.length).toBe(REPORTED_DESCENDANTS + 1);
      expect(seen.every((o) => 'absent' in o)).toBe(true);
      expect(seen.at(-1)).toEqual(absent('big'));
    });

    it('rename: the old path absent and the new one present; a folder also carries its contents', async () => {
      await seed({ 'a.txt': 'a', 'd/x.txt': 'x', 'd/s/y.txt': 'y' });
      await fs.rename(p('a.txt'), p('b.txt'));
      expect(seen).toEqual([absent('a.txt'), await present('b.txt')]);
      seen = [];
      await fs.rename(p('d'), p('e'));
      const byPath = (list: Observation[]) => [...list].sort((l, r) => (l.absolutePath < r.absolutePath ? -1 : 1));
      expect(seen[0]).toEqual(absent('d'));
      expect(byPath(seen.slice(1, 4))).toEqual([absent('d/s'), absent('d/s/y.txt'), absent('d/x.txt')]);
      expect(seen[4]).toEqual(await present('e'));
      expect(byPath(seen.slice(5))).toEqual([await present('e/s'), await present('e/s/y.txt'), await present('e/x.txt')]);
    });

    it('rename onto itself changes nothing and reports nothing', async () => {
      await seed({ 'a.txt': 'a' });
      await fs.rename(p('a.txt'), p('a.txt'));
      expect(seen).toEqual([]);
    });

    it('copy: the new entry and what is below it', async () => {
      await seed({ 'src/x.txt': 'x', 'one.txt': '1' });
      await fs.copy(p('one.txt'), p('two.txt'));
      await fs.copy(p('src'), p('dst'));
      expect(seen).toEqual([await present('two.txt'), await present('dst'), await present('dst/x.txt')]);
    });

    it('a failed mutation reports nothing', async () => {
      await seed({ 'a.txt': 'a', 'd/x.txt': 'x' });
      await expect(fs.write(p('a.txt'), 'b', { ifVersion: 'stale' })).rejects.toMatchObject({ code: 'version-mismatch' });
      await expect(fs.write(p('a.txt'), 'b', { exclusive: true })).rejects.toMatchObject({ code: 'exists' });
      await expect(fs.remove(p('d'))).rejects.toMatchObject({ code: 'not-empty' });
      await expect(fs.rename(p('missing'), p('b.txt'))).rejects.toMatchObject({ code: 'not-found' });
      await expect(fs.mkdir(p('d'))).rejects.toMatchObject({ code: 'exists' });
      await expect(fs.writeAt(p('a.txt'), 99, encoder.encode('x'))).rejects.toMatchObject({ code: 'invalid' });
      expect(seen).toEqual([]);
    });

    it('a listener that throws does not fail the mutation', async () => {
      const throwing = new ObservedFileSystem(inner, () => {
        throw new Error('listener bug');
      });
      const errors: unknown[] = [];
      const original = console.error;
      console.error = (...args: unknown[]) => void errors.push(args);
      try {
        await throwing.write(p('a.txt'), 'still written');
      } finally {
        console.error = original;
      }
      expect(new TextDecoder().decode(await inner.read(p('a.txt')))).toBe('still written');
      expect(errors.length).toBe(1);
    });
  });
}

describe('ObservedFileSystem: reads', () => {
  it('passes every argument through (readdir limits, readStream chunk sizes) and reports nothing', async () => {
    const inner = new MemoryFileSystem({ '/ws/a': 'abcdefghij', '/ws/b': '', '/ws/c': '' });
    const seen: Observation[] = [];
    const fs = new ObservedFileSystem(inner, (observation) => seen.push(observation));
    expect((await fs.readdir('/ws', { limit: 2 })).length).toBe(2);
    const sizes: number[] = [];
    const reader = (await fs.readStream('/ws/a', { offset: 1 }, { chunkBytes: 4 })).getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) sizes.push(chunk.value.byteLength);
    expect(sizes).toEqual([4, 4, 1]);
    expect(new TextDecoder().decode(await fs.read('/ws/a', { offset: 2, length: 3 }))).toBe('cde');
    expect(seen).toEqual([]);
  });
});

describe('ObservedFileSystem: a recursive removal that fails part-way', () => {
  it('reports the state each path was left in', async () => {
    const inner = new MemoryFileSystem({ '/ws/d/x.txt': 'x', '/ws/d/locked/y.txt': 'y' });
    await inner.chmod('/ws/d/locked', 0o500); // its entries cannot be removed
    const seen: Observation[] = [];
    const fs = new ObservedFileSystem(inner, (observation) => seen.push(observation));
    await expect(fs.remove('/ws/d', { recursive: true })).rejects.toMatchObject({ code: 'permission-denied' });
    const actual = await Promise.all(
      ['/ws/d/x.txt', '/ws/d/locked', '/ws/d/locked/y.txt', '/ws/d'].map(async (path): Promise<Observation> => {
        try {
          return { absolutePath: path, version: (await inner.lstat(path)).version };
        } catch {
          return { absolutePath: path, absent: true };
        }
      }),
    );
    const byPath = (list: Observation[]) => [...list].sort((l, r) => (l.absolutePath < r.absolutePath ? -1 : 1));
    expect(byPath(seen)).toEqual(byPath(actual));
    expect(seen.some((o) => o.absolutePath === '/ws/d/locked/y.txt' && 'version' in o)).toBe(true);
  });
});
