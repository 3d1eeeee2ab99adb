import { createServer } from 'node:net';
import { once } from 'node:events';
import { execFileSync } from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import * as nodeFs from 'node:fs/promises';
import fsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { toFsError } from '../../../adapters/fs/node-fs-error.ts';
import { runFileSystemContract } from './contract.ts';

async function makeRoot(): Promise<string> {
  return nodeFs.realpath(await nodeFs.mkdtemp(join(tmpdir(), 'fs-contract-')));
}

runFileSystemContract('NodeFileSystem', async () => {
  const root = await makeRoot();
  return {
    fs: new NodeFileSystem(),
    root,
    cleanup: () => nodeFs.rm(root, { recursive: true, force: true }),
  };
});

// The same contract where the daemon uses it: confined to the folder it serves (adapters/fs/node-confinement.ts).
runFileSystemContract('NodeFileSystem confined to its root', async () => {
  const root = await makeRoot();
  const fs = new NodeFileSystem();
  fs.confine(root);
  return { fs, root, cleanup: () => nodeFs.rm(root, { recursive: true, force: true }) };
});

describe('NodeFileSystem specifics', () => {
  let root: string;
  const fs = new NodeFileSystem();
  const entries = async () => (await nodeFs.readdir(root)).sort();

  beforeEach(async () => {
    root = await makeRoot();
  });
  afterEach(async () => {
    await nodeFs.rm(root, { recursive: true, force: true });
  });

  it('enforces permissions unless running as root', () => {
    expect(fs.capabilities).toEqual({ symlinks: true, watch: false, permissions: process.getuid?.() !== 0 });
  });

  it('leaves no temp file behind after writes that succeed or fail', async () => {
    const file = join(root, 'f.txt');
    const { version } = await fs.write(file, 'one');
    await fs.write(file, 'two', { ifVersion: version });
    await fs.write(join(root, 'g.txt'), 'g', { exclusive: true });
    await fs.copy(file, join(root, 'h.txt'));
    await expect(fs.write(file, 'x', { ifVersion: version })).rejects.toMatchObject({ code: 'version-mismatch' });
    await expect(fs.write(file, 'x', { exclusive: true })).rejects.toMatchObject({ code: 'exists' });
    // Fails after the temp file exists: the data cannot be written.
    await expect(fs.write(file, 42 as unknown as string)).rejects.toMatchObject({ code: 'io' });
    expect(await entries()).toEqual(['f.txt', 'g.txt', 'h.txt']);
    expect(await nodeFs.readFile(file, 'utf8')).toBe('two');
  });

  it('removes the temp file and keeps the old content when the final rename fails', async () => {
    const file = join(root, 'f.txt');
    await fs.write(file, 'before');
    const realRename = fsPromises.rename;
    fsPromises.rename = async () => {
      throw Object.assign(new Error('EXDEV: simulated'), { code: 'EXDEV' });
    };
    syncBuiltinESMExports();
    try {
      await expect(fs.write(file, 'after')).rejects.toMatchObject({ code: 'io' });
    } finally {
      fsPromises.rename = realRename;
      syncBuiltinESMExports();
    }
    expect(await entries()).toEqual(['f.txt']);
    expect(await nodeFs.readFile(file, 'utf8')).toBe('before');
  });

  it('preserves the mode bits of the file it replaces, also through a link', async () => {
    const file = join(root, 'script.sh');
    await nodeFs.writeFile(file, '#!/bin/sh\n');
    await nodeFs.chmod(file, 0o775);
    // A strict umask would strip these bits from a freshly created temp file: the mode must be restored.
    const previousUmask = process.umask(0o077);
    try {
      await fs.write(file, '#!/bin/sh\necho hi\n');
      expect((await nodeFs.stat(file)).mode & 0o7777).toBe(0o775);
      await nodeFs.symlink('script.sh', join(root, 'link'));
      await fs.write(join(root, 'link'), 'again');
      expect((await nodeFs.stat(file)).mode & 0o7777).toBe(0o775);
      expect((await nodeFs.lstat(join(root, 'link'))).isSymbolicLink()).toBe(true);
    } finally {
      process.umask(previousUmask);
    }
  });

  it('replaces the inode on write (atomic rename), so an old hard link keeps the old bytes', async () => {
    const file = join(root, 'f');
    await fs.write(file, 'old');
    await nodeFs.link(file, join(root, 'old-name'));
    await fs.write(file, 'new');
    expect(await nodeFs.readFile(join(root, 'old-name'), 'utf8')).toBe('old');
    expect(await nodeFs.readFile(file, 'utf8')).toBe('new');
  });

  it('lists a FIFO as other and refuses to read it instead of blocking', async () => {
    const fifo = join(root, 'pipe');
    execFileSync('mkfifo', [fifo]);
    expect(await fs.readdir(root)).toEqual([{ name: 'pipe', type: 'other' }]);
    expect((await fs.stat(fifo)).type).toBe('other');
    await expect(fs.read(fifo)).rejects.toMatchObject({ code: 'invalid' });
    await expect(fs.readStream(fifo)).rejects.toMatchObject({ code: 'invalid' });
  });

  it('translates errno errors that have no specific code into io', async () => {
    // open(2) on a UNIX socket fails with ENXIO, which has no code of its own.
    const socketPath = join(root, 'sock');
    const server = createServer().listen(socketPath);
    await once(server, 'listening');
    try {
      const error = await fs.read(socketPath).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'io', path: socketPath });
      expect((error as Error).message).toContain('ENXIO');
    } finally {
      server.close();
    }
  });

  it('reports ENAMETOOLONG from the kernel as name-too-long', () => {
    expect(toFsError(Object.assign(new Error('x'), { code: 'ENAMETOOLONG' }), '/a')).toMatchObject({ code: 'name-too-long' });
  });
});
