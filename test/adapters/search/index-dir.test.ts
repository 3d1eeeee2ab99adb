/**
 * The disk index's folder: private to its owner, and outside the workspace by real paths (found by review).
 */
import { mkdtemp, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DiskIndexStore } from '../../../adapters/search/index-store-disk.ts';
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
