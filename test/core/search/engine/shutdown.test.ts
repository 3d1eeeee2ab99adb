/**
 * Shutdown while the search engine's first walk runs (the daemon's SIGTERM during start-up) does not wait for the
 * whole walk: closing the list stops it (found by review: 7.6 s on the kernel tree, past the CLI's 10 s deadline
 * with the other shutdown work).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../../../adapters/fs/memory-file-system.ts';
import { createWorkspaceApp, type WorkspaceApp } from '../../../../runtime/app.ts';

/** A tree whose every readdir takes 200 ms; `walking` settles at the first one. */
function slowTree(): { fs: FileSystem; walking: Promise<void> } {
  let started!: () => void;
  const walking = new Promise<void>((resolve) => (started = resolve));
  const seed: Record<string, string> = {};
  for (let i = 0; i < 400; i++) seed[`/ws/d${i}/f.txt`] = `hello ${i}\n`;
  const fs = new MemoryFileSystem(seed);
  const slow = new Proxy(fs, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key !== 'readdir' || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        started();
        await new Promise((r) => setTimeout(r, 200));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as FileSystem;
  return { fs: slow, walking };
}

let app: WorkspaceApp | undefined;
afterEach(async () => {
  app = undefined;
});

describe('the search engine during its first walk', () => {
  it('close() returns promptly', async () => {
    const tree = slowTree();
    app = createWorkspaceApp({ fs: tree.fs, root: '/ws', auth: { disabled: true }, search: { eager: true } });
    await tree.walking;
    const started = Date.now();
    await app.close();
    expect(Date.now() - started).toBeLessThan(3000); // the walk alone would take ~10 s
  });

});
