import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { resolveInsideRoot } from '../../../core/paths/resolve-inside-root.ts';

interface Layout {
  fs: FileSystem;
  root: string;
  outside: string;
  cleanup(): Promise<void>;
}

/** root/{a.txt, sub/real.txt, sub/inner/}, outside/secret.txt, and links between them. */
async function populate(fs: FileSystem, root: string, outside: string): Promise<void> {
  await fs.write(`${root}/a.txt`, 'a');
  await fs.write(`${root}/sub/real.txt`, 'real', { mkdirs: true });
  await fs.mkdir(`${root}/sub/inner`);
  await fs.write(`${outside}/secret.txt`, 'secret', { mkdirs: true });
  await fs.symlink(`${outside}/secret.txt`, `${root}/out-file`);
  await fs.symlink(outside, `${root}/out-dir`);
  await fs.symlink('l2', `${root}/l1`);
  await fs.symlink('out-dir', `${root}/l2`);
  await fs.symlink(`${outside}/new.txt`, `${root}/dangling-out`);
  await fs.symlink('sub/real.txt', `${root}/in-file`);
  await fs.symlink('sub', `${root}/in-dir`);
  await fs.symlink('sub/inner', `${root}/deep`);
  await fs.symlink('../sub/missing.txt', `${root}/sub/dangling-in`);
  await fs.symlink('c2', `${root}/c1`);
  await fs.symlink('c1', `${root}/c2`);
}

const backends: Record<string, () => Promise<Layout>> = {
  node: async () => {
    const base = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-contain-')));
    const fs = new NodeFileSystem();
    await fs.mkdir(`${base}/root`);
    await populate(fs, `${base}/root`, `${base}/outside`);
    return { fs, root: `${base}/root`, outside: `${base}/outside`, cleanup: () => rm(base, { recursive: true, force: true }) };
  },
  memory: async () => {
    const fs = new MemoryFileSystem();
    await fs.mkdir('/ws');
    await populate(fs, '/ws', '/outside');
    return { fs, root: '/ws', outside: '/outside', cleanup: async () => {} };
  },
};

for (const [name, make] of Object.entries(backends)) {
  describe(`resolveInsideRoot (${name})`, () => {
    let l: Layout;
    beforeEach(async () => {
      l = await make();
    });
    afterEach(() => l.cleanup());
    const resolve = (path: string, unrestricted = false) => resolveInsideRoot(l.fs, l.root, path, { unrestricted });
    const refused = (path: string) =>
      expect(resolve(path)).rejects.toMatchObject({ code: 'outside-workspace', status: 403 });

    it('resolves relative, empty and absolute-inside paths', async () => {
      expect(await resolve('a.txt')).toBe(`${l.root}/a.txt`);
      expect(await resolve('./sub/../a.txt')).toBe(`${l.root}/a.txt`);
      expect(await resolve('')).toBe(l.root);
      expect(await resolve(`${l.root}/sub/real.txt`)).toBe(`${l.root}/sub/real.txt`);
    });

    it('resolves paths that do not exist yet to where they would be created', async () => {
      expect(await resolve('new/dir/file.txt')).toBe(`${l.root}/new/dir/file.txt`);
      expect(await resolve('in-dir/new.txt')).toBe(`${l.root}/sub/new.txt`);
    });

    it('refuses .. that climbs out, directly or after descending', async () => {
      await refused('..');
      await refused('../x');
      await refused('sub/../../x');
      await refused('sub/inner/../../../outside/secret.txt');
    });

    it('refuses absolute paths outside the root, including a sibling sharing its prefix', async () => {
      await refused('/etc/passwd');
      await refused(`${l.outside}/secret.txt`);
      await refused(`${l.root}-evil/x`);
      await refused('/');
    });

    it('treats backslashes as separators, so ..\\ cannot escape', async () => {
      await refused('..\\..\\etc\\passwd');
      await refused('sub\\..\\..\\x');
      expect(await resolve('sub\\real.txt')).toBe(`${l.root}/sub/real.txt`);
    });

    it('refuses NUL bytes with a bad request', async () => {
      await expect(resolve('a.txt\0.png')).rejects.toMatchObject({ code: 'bad-request', status: 400 });
    });

    it('takes percent signs literally (query strings arrive decoded once)', async () => {
      expect(await resolve('%2e%2e/x')).toBe(`${l.root}/%2e%2e/x`);
    });

    it('refuses symlinks that leave the root: to a file, to a folder, chained, dangling', async () => {
      await refused('out-file');
      await refused('out-dir');
      await refused('out-dir/secret.txt');
      await refused('out-dir/not-there.txt');
      await refused('l1/secret.txt');
      await refused('dangling-out');
    });

    it('follows symlinks that stay inside, to their real paths', async () => {
      expect(await resolve('in-file')).toBe(`${l.root}/sub/real.txt`);
      expect(await resolve('in-dir/real.txt')).toBe(`${l.root}/sub/real.txt`);
      expect(await resolve('sub/dangling-in')).toBe(`${l.root}/sub/missing.txt`);
    });

    it('folds .. in the request lexically before following links (as Go\'s filepath.Join does)', async () => {
      expect(await resolve('deep/../a.txt')).toBe(`${l.root}/a.txt`);
    });

    it('applies .. inside a link target physically, as the kernel does', async () => {
      await l.fs.symlink('inner/..', `${l.root}/sub/up`);
      expect(await resolve('sub/up/real.txt')).toBe(`${l.root}/sub/real.txt`);
    });

    it('does not fold missing/.. inside a link target (the kernel answers ENOENT there too)', async () => {
      await l.fs.symlink('missing/../out-dir', `${l.root}/tricky`);
      await l.fs.symlink('nonexistent/..', `${l.root}/weird`);
      for (const path of ['tricky/secret.txt', 'tricky', 'weird/x']) {
        await expect(resolve(path), path).rejects.toMatchObject({ code: 'not-found', status: 404 });
      }
    });

    it('keeps the meaning of a trailing slash: it names a folder', async () => {
      await expect(resolve('a.txt/')).rejects.toMatchObject({ code: 'bad-request', message: 'not a directory' });
      await expect(resolve('in-file/')).rejects.toMatchObject({ code: 'bad-request' });
      expect(await resolve('sub/')).toBe(`${l.root}/sub`);
      expect(await resolve('in-dir/')).toBe(`${l.root}/sub`);
      expect(await resolve('not-yet/')).toBe(`${l.root}/not-yet`);
    });

    it('refuses symlink cycles', async () => {
      await expect(resolve('c1/x')).rejects.toMatchObject({ code: expect.stringMatching(/loop|bad-request/) });
    });

    it('uses absolute paths as-is when unrestricted', async () => {
      expect(await resolve(`${l.outside}/secret.txt`, true)).toBe(`${l.outside}/secret.txt`);
      expect(await resolve('out-file', true)).toBe(`${l.outside}/secret.txt`);
      expect(await resolve('../outside/new.txt', true)).toBe(`${l.outside}/new.txt`);
    });
  });
}
