import { describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import type { WorkspaceView } from '../../../core/agents/workspace-view.ts';
import type { Change, FeedFrame } from '../../../core/changes/change-feed.ts';
import { createChangeFeed } from '../../../core/changes/create-change-feed.ts';
import { subscribeInView } from '../../../core/changes/view-subscription.ts';

const present = (absolutePath: string, version: string): Change => ({ absolutePath, version });
const change = (c: Change): FeedFrame => ({ kind: 'change', change: c });

/** A hand-made view of /ws; `mapChange` as given (left out: every change as it is). */
function viewOf(mapChange?: WorkspaceView['mapChange']): WorkspaceView {
  return {
    fs: new MemoryFileSystem(),
    root: '/ws',
    agent: undefined,
    resolve: async (path) => `/ws/${path}`,
    isShared: async () => true,
    ...(mapChange ? { mapChange } : {}),
  };
}

describe('subscribeInView', () => {
  it('maps each change, drops what the view does not see or places outside its root, resyncs on a failed mapping', async () => {
    const feed = createChangeFeed();
    const view = viewOf(async (c) => {
      if (c.absolutePath === '/ws/hidden') return undefined;
      if (c.absolutePath === '/ws/broken') throw new Error('cannot place it');
      if (c.absolutePath === '/ws/elsewhere') return present('/other/x', 'v');
      return { ...c, absolutePath: c.absolutePath.replace('/ws/copy/', '/ws/') };
    });
    const subscription = subscribeInView(feed, view);
    for (const path of ['/ws/hidden', '/ws/elsewhere', '/ws/copy/a.txt', '/ws/broken', '/ws/b.txt']) feed.publish(present(path, '1'));
    const frames: FeedFrame[] = [];
    for (let i = 0; i < 4; i++) frames.push((await subscription.next()).value!);
    expect(frames).toEqual([
      { kind: 'ready' },
      change(present('/ws/a.txt', '1')),
      { kind: 'resync' },
      change(present('/ws/b.txt', '1')),
    ]);
    subscription.close();
    expect(feed.subscriberCount).toBe(0);
    expect(await subscription.next()).toEqual({ done: true, value: undefined });
  });

  it('works as an async iterable; leaving the loop closes the feed subscription beneath', async () => {
    const feed = createChangeFeed();
    const subscription = subscribeInView(feed, viewOf());
    feed.publish(present('/ws/a', '1'));
    feed.publish(present('/ws/b', '2'));
    const seen: FeedFrame[] = [];
    for await (const frame of subscription) {
      seen.push(frame);
      if (seen.length === 2) break;
    }
    expect(seen).toEqual([{ kind: 'ready' }, change(present('/ws/a', '1'))]);
    expect(feed.subscriberCount).toBe(0);
    expect(await subscription.next()).toEqual({ done: true, value: undefined });
  });
});
