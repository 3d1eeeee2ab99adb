/**
 * The disk index's folder: private to its owner, and outside the workspace by real paths (found by review).
 */
import { mkdtemp, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { DiskIndexStore } from '../../../adapters/search/index-store-disk.ts';
import { nodeSearchAdapters } from '../../../runtime/node/search-adapters.ts';
import { parseCliArgs } from '../../../runtime/node/args.ts';
import { tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

let ws: TempWorkspace;
let outside: string;
beforeEach(async () => {
  ws = await tempWorkspace({ 'a.txt': 'hello\n' });
  outside = await mkdtemp(join(tmpdir(), 'wsapi-idx-'));
});
afterEach(async () => {
  await ws.cleanup();
  await rm(outside, { recursive: true, force: true });
});

describe('the index folder', () => {
  it('is created private (0700), its files 0600: the cache names every file of the workspace', async () => {
    const previous = process.umask(0o022);
    try {
      const dir = join(outside, 'cache', 'workspace-api', 'x');
      const store = new DiskIndexStore({ root: ws.root, dir });
      await store.writeManifest(new TextEncoder().encode('{}\n'));
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
      expect((await stat(join(dir, 'manifest.json'))).mode & 0o777).toBe(0o600);
    } finally {
      process.umask(previous);
    }
  });

  it('refuses a folder that reaches the root through a symlink (store and CLI)', async () => {
    const link = join(outside, 'link-to-root');
    await symlink(ws.root, link);
    const dir = join(link, '.idx');
    expect(() => new DiskIndexStore({ root: ws.root, dir })).toThrow(/inside the workspace/);
    expect(() => new DiskIndexStore({ root: ws.root, env: { XDG_CACHE_HOME: link } })).toThrow(/inside the workspace/);
    await expect(parseCliArgs(['--cwd', ws.root, '--index-dir', dir, '--token', 'abcdefabcdefabcdef1234'], {}, outside)).rejects.toThrow(
      /inside the workspace root/,
    );
  });

});

describe('the index folder lock', () => {
  it('one daemon per folder: a second store cannot take it while the first lives; unlock gives it back', async () => {
    const dir = join(outside, 'idx');
    const first = new DiskIndexStore({ root: ws.root, dir });
    expect(first.lock()).toEqual({ ok: true });
    expect(await readFile(join(dir, 'lock'), 'utf8')).toBe(`${process.pid}\n`);
    expect((await stat(join(dir, 'lock'))).mode & 0o777).toBe(0o600);
    // Another process holds it: simulated with a live pid that is not ours (our parent, which outlives the test).
    await writeFile(join(dir, 'lock'), `${process.ppid}\n`);
    expect(new DiskIndexStore({ root: ws.root, dir }).lock()).toEqual({ ok: false, holder: process.ppid });
    first.unlock(); // not ours any more: left alone
    expect(await readFile(join(dir, 'lock'), 'utf8')).toBe(`${process.ppid}\n`);
    await writeFile(join(dir, 'lock'), `${process.pid}\n`);
    first.unlock();
    await expect(stat(join(dir, 'lock'))).rejects.toThrow(/ENOENT/);
  });

  it('a lock left by a process that is gone (a crash) is taken over', async () => {
    const dir = join(outside, 'idx');
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    const store = new DiskIndexStore({ root: ws.root, dir });
    store.lock();
    await writeFile(join(dir, 'lock'), `${gone}\n`);
    expect(store.lock()).toEqual({ ok: true });
    expect(await readFile(join(dir, 'lock'), 'utf8')).toBe(`${process.pid}\n`);
    await writeFile(join(dir, 'lock'), 'garbage');
    expect(store.lock()).toEqual({ ok: true });
    store.unlock();
  });

  it('a second daemon on the same folder keeps its index in memory and says so; the first releases it on close', async () => {
    const dir = join(outside, 'idx');
    const lines: string[] = [];
    const first = nodeSearchAdapters(ws.root, { persist: true, indexDir: dir, log: (line) => lines.push(line) });
    expect(first.adapters.indexStore).toBeInstanceOf(DiskIndexStore);
    await writeFile(join(dir, 'lock'), `${process.ppid}\n`); // as if another live daemon held it
    const second = nodeSearchAdapters(ws.root, { persist: true, indexDir: dir, log: (line) => lines.push(line) });
    expect(second.adapters.indexStore).toBeUndefined();
    expect(lines).toEqual([`search: the index folder ${dir} is in use by process ${process.ppid}; this daemon keeps its index in memory`]);
    await writeFile(join(dir, 'lock'), `${process.pid}\n`);
    await second.close();
    await first.close();
    await expect(stat(join(dir, 'lock'))).rejects.toThrow(/ENOENT/);
  });
});
