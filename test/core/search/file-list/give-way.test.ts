/**
 * The list's first walk gives way to queries that walk the disk themselves (FileListOptions.giveWay): while the
 * hook holds, no folder is read; and the engine's policy (core/search/engine/list-gives-way.ts) holds the list
 * only while such a query runs, and never longer than its bound.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FileSystem } from '../../../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../../../adapters/fs/memory-file-system.ts';
import { createChangeFeed } from '../../../../core/changes/create-change-feed.ts';
import { listGivesWay } from '../../../../core/search/engine/list-gives-way.ts';
import { createFileList } from '../../../../core/search/file-list/create-file-list.ts';
import { heldGiveWay } from '../../../support/gates.ts';

afterEach(() => {
  vi.useRealTimers();
});

function countingReaddir(fs: FileSystem): { fs: FileSystem; reads: () => number } {
  let reads = 0;
  const counted = new Proxy(fs, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      if (key !== 'readdir') return value.bind(target);
      return (...args: unknown[]) => {
        reads++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { fs: counted, reads: () => reads };
}

describe('FileListOptions.giveWay', () => {
  it('the first walk reads no folder while the hook holds, and completes once it lets go', async () => {
    const { fs, reads } = countingReaddir(new MemoryFileSystem({ '/ws/a.txt': 'a', '/ws/b/c.txt': 'c' }));
    const feed = createChangeFeed();
    const gate = heldGiveWay();
    const list = createFileList({ fs, root: '/ws', changes: feed, giveWay: gate.giveWay });
    try {
      await gate.asked;
      expect(reads()).toBe(0);
      expect(list.isReady).toBe(false);
      gate.release();
      await list.ready;
      expect(list.files({ includeIgnored: true }).map((file) => file.path)).toEqual(['a.txt', 'b/c.txt']);
    } finally {
      list.close();
      feed.close();
    }
  });
});

describe('listGivesWay (the engine\'s policy)', () => {
  it('holds the list only while a walking query runs', async () => {
    const policy = listGivesWay(Date.now);
    expect(policy.turn()).toBeUndefined();
    const end = policy.begin();
    const turn = policy.turn();
    expect(turn).toBeInstanceOf(Promise);
    expect(policy.turn()).toBe(turn); // one wait, shared
    end();
    await turn; // resolves: the query is over
    expect(policy.turn()).toBeUndefined();
  });

  it('lets go after 3 s however many queries run, then lets the list read for 1 s', async () => {
    vi.useFakeTimers();
    const policy = listGivesWay(Date.now);
    const end = policy.begin();
    let released = false;
    void policy.turn()!.then(() => (released = true));
    await vi.advanceTimersByTimeAsync(2999);
    expect(released).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(released).toBe(true);
    expect(policy.turn()).toBeUndefined(); // the list's second of free reading
    await vi.advanceTimersByTimeAsync(1000);
    expect(policy.turn()).toBeInstanceOf(Promise); // the query still runs: held again
    end();
  });
});
