/**
 * NodeFileSystem.copy of folders (adapters/fs/node-copy-tree.ts): many entries in flight, and still the
 * guarantees the contract suite and core/tree-ops' staged copy rely on — an exact copy (contents, links,
 * permission bits), a bound on what is in flight, and nothing still being written once the call has failed.
 */
import { execFileSync } from 'node:child_process';
import fsPromises from 'node:fs/promises';
import * as nodeFs from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COPY_CONCURRENCY } from '../../../adapters/fs/node-copy-tree.ts';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';

type Snapshot = Record<string, string>;

/** Every entry below `folder`: kind, permission bits, and a file's content or a link's text. */
async function snapshot(folder: string): Promise<Snapshot> {
  const out: Snapshot = {};
  const visit = async (rel: string) => {
    for (const name of (await nodeFs.readdir(join(folder, rel))).sort()) {
      const path = rel === '' ? name : `${rel}/${name}`;
      const abs = join(folder, path);
      const stats = await nodeFs.lstat(abs);
      const mode = (stats.mode & 0o7777).toString(8);
      if (stats.isSymbolicLink()) out[path] = `link -> ${await nodeFs.readlink(abs)}`;
      else if (stats.isDirectory()) {
        out[path] = `dir ${mode}`;
        await visit(path);
      } else out[path] = `file ${mode} ${await nodeFs.readFile(abs, 'utf8')}`;
    }
  };
  await visit('');
  return out;
}

/** Replaces fs/promises' copyFile for the ES-module importers too; returns the undo. */
function patchCopyFile(replacement: typeof fsPromises.copyFile): () => void {
  const real = fsPromises.copyFile;
  fsPromises.copyFile = replacement;
  syncBuiltinESMExports();
  return () => {
    fsPromises.copyFile = real;
    syncBuiltinESMExports();
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 2));

describe('NodeFileSystem.copy of a folder', () => {
  const fs = new NodeFileSystem();
  let root: string;

  beforeEach(async () => {
    root = await nodeFs.realpath(await nodeFs.mkdtemp(join(tmpdir(), 'copy-tree-')));
  });
  afterEach(async () => {
    // Read-only folders in a copy must not stop the clean-up.
    execFileSync('chmod', ['-R', 'u+rwx', root]);
    await nodeFs.rm(root, { recursive: true, force: true });
  });

  /** 21 folders over 3 levels, 6 files and a link in each, an empty folder: wider than COPY_CONCURRENCY. */
  async function makeTree(top: string): Promise<void> {
    const fill = async (folder: string, depth: number) => {
      await nodeFs.mkdir(folder);
      for (let f = 0; f < 6; f++) await nodeFs.writeFile(join(folder, `f${f}.txt`), `${folder}:${f}`);
      await nodeFs.symlink('f0.txt', join(folder, 'link'));
      if (depth === 0) return;
      for (let d = 0; d < 4; d++) await fill(join(folder, `d${d}`), depth - 1);
    };
    await fill(top, 2);
    await nodeFs.mkdir(join(top, 'empty'));
    await nodeFs.chmod(join(top, 'd1', 'f2.txt'), 0o600);
    await nodeFs.chmod(join(top, 'd2', 'f3.txt'), 0o755);
  }

  it('copies every file, folder and link exactly, permission bits included', async () => {
    const src = join(root, 'src');
    await makeTree(src);
    await nodeFs.chmod(join(src, 'd0'), 0o750);
    const before = await snapshot(src);
    expect(Object.keys(before)).toHaveLength(21 * 7 + 20 + 1); // files and links, the folders below src, empty

    await fs.copy(src, join(root, 'dst'));
    expect(await snapshot(join(root, 'dst'))).toEqual(before);
    expect(await snapshot(src)).toEqual(before);
    expect((await nodeFs.stat(join(root, 'dst'))).mode & 0o7777).toBe((await nodeFs.stat(src)).mode & 0o7777);
  });

  it('fills read-only source folders, and gives the copies their bits once they are full', async () => {
    const src = join(root, 'src');
    await makeTree(src);
    await nodeFs.chmod(join(src, 'd3', 'd1'), 0o555);
    await nodeFs.chmod(join(src, 'd3'), 0o555);
    await nodeFs.chmod(src, 0o555);
    const before = await snapshot(src);
    await fs.copy(src, join(root, 'dst'));
    expect(await snapshot(join(root, 'dst'))).toEqual(before);
    expect((await nodeFs.stat(join(root, 'dst'))).mode & 0o7777).toBe(0o555);
  });

  it(`keeps at most ${COPY_CONCURRENCY} files in flight, and more than one`, async () => {
    const src = join(root, 'src');
    await makeTree(src);
    const real = fsPromises.copyFile;
    let inFlight = 0;
    let most = 0;
    const undo = patchCopyFile(async (from, to, mode) => {
      most = Math.max(most, ++inFlight);
      try {
        await tick();
        return await real(from, to, mode);
      } finally {
        inFlight--;
      }
    });
    try {
      await fs.copy(src, join(root, 'dst'));
    } finally {
      undo();
    }
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(COPY_CONCURRENCY);
    expect(await snapshot(join(root, 'dst'))).toEqual(await snapshot(src));
  });

  it('on a failure, starts nothing more and settles only once nothing is in flight, with the first error', async () => {
    const src = join(root, 'src');
    await makeTree(src);
    const real = fsPromises.copyFile;
    let inFlight = 0;
    let started = 0;
    let startedAfterFailure = 0;
    let failed = false;
    const undo = patchCopyFile(async (from, to, mode) => {
      if (failed) startedAfterFailure++;
      const index = ++started;
      inFlight++;
      try {
        await tick();
        if (index === 30) {
          failed = true;
          throw Object.assign(new Error('ENOSPC: simulated'), { code: 'ENOSPC' });
        }
        // The others in flight finish later than the failure: the copy must wait for them.
        await tick();
        return await real(from, to, mode);
      } finally {
        inFlight--;
      }
    });
    let inFlightAtRejection = -1;
    try {
      const error = await fs.copy(src, join(root, 'dst')).catch((e: unknown) => {
        inFlightAtRejection = inFlight;
        return e;
      });
      expect(error).toMatchObject({ code: 'io', message: expect.stringContaining('ENOSPC') });
    } finally {
      undo();
    }
    expect(inFlightAtRejection).toBe(0);
    expect(startedAfterFailure).toBe(0);
    // What it left is exactly what had been copied when it settled (the staged copy's caller removes it).
    const left = await snapshot(join(root, 'dst'));
    await tick();
    expect(await snapshot(join(root, 'dst'))).toEqual(left);
  });

  it('refuses a special file deep in the tree as invalid, after the entries in flight are done', async () => {
    const src = join(root, 'src');
    await makeTree(src);
    execFileSync('mkfifo', [join(src, 'd2', 'd0', 'pipe')]);
    await expect(fs.copy(src, join(root, 'dst'))).rejects.toMatchObject({
      code: 'invalid',
      message: `invalid: cannot copy a special file: ${join(src, 'd2', 'd0', 'pipe')}`,
    });
    const left = await snapshot(join(root, 'dst'));
    await tick();
    expect(await snapshot(join(root, 'dst'))).toEqual(left);
    expect(left['d2/d0/pipe']).toBeUndefined();
  });
});
