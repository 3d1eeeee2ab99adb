import { describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { measureTree } from '../../../core/tree-ops/measure-tree.ts';
import { instrumented } from './faulty-file-system.ts';

/** /ws/big: `folders` folders of `files` files each (10 bytes per file). */
function bigTree(folders: number, files: number): MemoryFileSystem {
  const seed: Record<string, string> = {};
  for (let d = 0; d < folders; d++) for (let f = 0; f < files; f++) seed[`/ws/big/d${d}/f${f}.txt`] = '0123456789';
  return new MemoryFileSystem(seed);
}

const roomy = { maxEntries: 1_000_000, maxBytes: 1_000_000_000 };

describe('measureTree', () => {
  it('counts every entry (the top one included) and the bytes of the files', async () => {
    const fs = bigTree(3, 4);
    expect(await measureTree(fs, '/ws/big', roomy)).toEqual({ entries: 1 + 3 + 12, bytes: 120 });
    expect(await measureTree(fs, '/ws/big/d0/f0.txt', roomy)).toEqual({ entries: 1, bytes: 10 });
  });

  it('is exact at the caps and stops at the first entry past one', async () => {
    const fs = bigTree(3, 4);
    expect(await measureTree(fs, '/ws/big', { maxEntries: 16, maxBytes: 120 })).toEqual({ entries: 16, bytes: 120 });
    expect(await measureTree(fs, '/ws/big', { maxEntries: 15, maxBytes: 120 })).toMatchObject({ entries: 16, exceeded: 'entries' });
    expect(await measureTree(fs, '/ws/big', { maxEntries: 16, maxBytes: 119 })).toMatchObject({ exceeded: 'bytes' });
  });

  it('does work bounded by the cap, not by the tree: 20 000 entries, a cap of 50', async () => {
    const { fs, calls } = instrumented(bigTree(200, 100));
    const measure = await measureTree(fs, '/ws/big', { maxEntries: 50, maxBytes: roomy.maxBytes });
    expect(measure).toEqual({ entries: 51, bytes: expect.any(Number), exceeded: 'entries' });
    // The top folder's listing (200 folders) already passes the cap: no subfolder is ever listed.
    expect(calls.readdir).toBe(1);
    expect(calls.lstat).toBeLessThanOrEqual(51);
  });

  it('never asks a folder for more names than could still fit under the entry cap', async () => {
    const { fs, calls, args } = instrumented(bigTree(1, 20_000));
    expect(await measureTree(fs, '/ws/big', { maxEntries: 10, maxBytes: roomy.maxBytes })).toMatchObject({
      entries: 11,
      exceeded: 'entries',
    });
    // /ws/big is entry 1 and asks for 10 names (9 could fit, one more tells); d0 is entry 2: 8 fit, it asks for 9.
    expect(args.readdir).toEqual([['/ws/big', { limit: 10 }], ['/ws/big/d0', { limit: 9 }]]);
    expect(calls.lstat).toBeLessThanOrEqual(10);
  });

  it('stops on bytes as soon as they pass the cap', async () => {
    const { fs, calls } = instrumented(bigTree(200, 100));
    expect(await measureTree(fs, '/ws/big', { maxEntries: roomy.maxEntries, maxBytes: 95 })).toMatchObject({
      bytes: 100,
      exceeded: 'bytes',
    });
    expect(calls.lstat).toBeLessThanOrEqual(11);
  });

  it('does not follow symlinks: a link to a huge folder, or a cycle, is one entry', async () => {
    const fs = bigTree(50, 100);
    await fs.mkdir('/ws/small');
    await fs.symlink('/ws/big', '/ws/small/to-big');
    await fs.symlink('..', '/ws/small/cycle');
    expect(await measureTree(fs, '/ws/small', { maxEntries: 3, maxBytes: 0 })).toEqual({ entries: 3, bytes: 0 });
  });
});
