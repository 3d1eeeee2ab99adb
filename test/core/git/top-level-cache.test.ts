import { describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { TopLevelCache } from '../../../core/git/top-level-cache.ts';

describe('TopLevelCache', () => {
  const setUp = () => {
    const fs = new MemoryFileSystem({ '/ws/app/.git/HEAD': 'ref: refs/heads/main\n', '/ws/app/src/deep/a.ts': 'a' });
    return { fs, cache: new TopLevelCache(fs) };
  };

  it('gives back what git answered while the repo’s .git is there and nothing in between gained one', async () => {
    const { fs, cache } = setUp();
    expect(await cache.lookup('/ws/app/src/deep')).toBeUndefined(); // never asked
    cache.remember('/ws/app/src/deep', '/ws/app');
    cache.remember('/ws/app', '/ws/app');
    expect(await cache.lookup('/ws/app/src/deep')).toBe('/ws/app');
    expect(await cache.lookup('/ws/app')).toBe('/ws/app');

    await fs.mkdir('/ws/app/src/.git'); // `git init src` (or a nested clone) between the folder and its top level
    expect(await cache.lookup('/ws/app/src/deep')).toBeUndefined();
    expect(await cache.lookup('/ws/app')).toBe('/ws/app');

    await fs.remove('/ws/app/.git', { recursive: true }); // the repo undone
    expect(await cache.lookup('/ws/app')).toBeUndefined();
    await fs.mkdir('/ws/app/.git');
    expect(await cache.lookup('/ws/app')).toBeUndefined(); // forgotten for good: git is asked again
  });

  it('a .git file (a worktree, a submodule) counts as the repo’s; folders inside a .git and outside R are never kept', async () => {
    const fs = new MemoryFileSystem({ '/ws/wt/.git': 'gitdir: /elsewhere\n', '/ws/wt/x/y': 'y', '/ws/app/.git/refs/heads/main': 'h' });
    const cache = new TopLevelCache(fs);
    cache.remember('/ws/wt/x', '/ws/wt');
    expect(await cache.lookup('/ws/wt/x')).toBe('/ws/wt');
    cache.remember('/ws/app/.git/refs', '/ws/app');
    expect(await cache.lookup('/ws/app/.git/refs')).toBeUndefined();
    cache.remember('/ws/other', '/ws/app');
    expect(await cache.lookup('/ws/other')).toBeUndefined();
  });

  it('forgets a folder that was removed or became a file: it is in no repo any more', async () => {
    const { fs, cache } = setUp();
    cache.remember('/ws/app/src/deep', '/ws/app');
    cache.remember('/ws/app/src', '/ws/app');
    await fs.remove('/ws/app/src/deep', { recursive: true });
    expect(await cache.lookup('/ws/app/src/deep')).toBeUndefined();
    await fs.remove('/ws/app/src', { recursive: true });
    await fs.write('/ws/app/src', new TextEncoder().encode('now a file'));
    expect(await cache.lookup('/ws/app/src')).toBeUndefined();
  });

  it('keeps at most 512 folders, the oldest forgotten first', async () => {
    const { fs, cache } = setUp();
    for (let i = 0; i <= 512; i++) {
      await fs.mkdir(`/ws/app/f${i}`);
      cache.remember(`/ws/app/f${i}`, '/ws/app');
    }
    expect(await cache.lookup('/ws/app/f0')).toBeUndefined();
    expect(await cache.lookup('/ws/app/f1')).toBe('/ws/app');
    expect(await cache.lookup('/ws/app/f512')).toBe('/ws/app');
  });
});
