import { describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import type { WorkspaceView } from '../../../core/agents/workspace-view.ts';
import type { Change, FeedFrame } from '../../../core/changes/change-feed.ts';
import { createChangeFeed } from '../../../core/changes/create-change-feed.ts';
import { subscribeInView } from '../../../core/changes/view-subscription.ts';

const present = (absolutePath: string, version: string): Change => ({ absolutePath, version });
const change = (c: Change): FeedFrame => ({ kind: 'change', change: c });

/** A hand-made view of /ws; `mapChange` as given (left out: every change as it is). */
function viewOf(mapChange?: WorkspaceView['mapChange'], fs = new MemoryFileSystem()): WorkspaceView {
  return {
    fs,
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

  describe('leaves out what tooling ignores', () => {
    const files = () =>
      new MemoryFileSystem({
        '/ws/.gitignore': 'build/\n',
        '/ws/pkg/.gitignore': 'out/\n',
        '/ws/build/old.js': 'o',
        '/ws/pkg/out/gen.js': 'g',
        '/ws/logs/app.log': 'l',
        '/ws/a.txt': 'a',
      });
    /** Publishes each path present (version '1'), then `/ws/marker`; returns the paths of the frames up to the marker. */
    async function framesFor(subscription: ReturnType<typeof subscribeInView>, feed: ReturnType<typeof createChangeFeed>, paths: string[]) {
      for (const path of paths) feed.publish(present(path, String(Math.random())));
      feed.publish(present('/ws/marker', String(Math.random())));
      return upToMarker(subscription);
    }
    /** The paths of the frames before `/ws/marker` (the kind for a frame without one). */
    async function upToMarker(subscription: ReturnType<typeof subscribeInView>) {
      const seen: string[] = [];
      for (;;) {
        const frame = (await subscription.next()).value!;
        if (frame.kind === 'ready') continue;
        const path = frame.kind === 'change' ? frame.change.absolutePath : frame.kind;
        if (path === '/ws/marker') return seen;
        seen.push(path);
      }
    }

    it('by default: .git internals, package stores, .gitignored and nested-.gitignored folders; a repo\'s .git entry stays', async () => {
      const feed = createChangeFeed();
      const subscription = subscribeInView(feed, viewOf(undefined, files()));
      expect(
        await framesFor(subscription, feed, [
          '/ws/node_modules/x/y.js',
          '/ws/.pnpm-store/v3/blob',
          '/ws/.git/objects/ab/cd',
          '/ws/.git',
          '/ws/vendor/lib/.git',
          '/ws/build/new.js',
          '/ws/build',
          '/ws/pkg/out/gen.js',
          '/ws/pkg/src.ts',
          '/ws/a.txt',
        ]),
      ).toEqual(['/ws/.git', '/ws/vendor/lib/.git', '/ws/pkg/src.ts', '/ws/a.txt']);
    });

    it('a .gitignore change takes effect from the next change on; a resync forgets every rule', async () => {
      const fs = files();
      const feed = createChangeFeed();
      const subscription = subscribeInView(feed, viewOf(undefined, fs));
      expect(await framesFor(subscription, feed, ['/ws/logs/app.log', '/ws/build/x.js', '/ws/pkg/out/gen.js'])).toEqual(['/ws/logs/app.log']);
      await fs.write('/ws/.gitignore', 'logs/\n');
      expect(await framesFor(subscription, feed, ['/ws/.gitignore', '/ws/logs/app.log', '/ws/build/x.js'])).toEqual([
        '/ws/.gitignore',
        '/ws/build/x.js',
      ]);
      await fs.write('/ws/pkg/.gitignore', ''); // unseen: no change published for it, its old rules still cached
      expect(await framesFor(subscription, feed, ['/ws/pkg/out/gen.js'])).toEqual([]);
      feed.resync();
      expect(await framesFor(subscription, feed, ['/ws/pkg/out/gen.js'])).toEqual(['resync', '/ws/pkg/out/gen.js']);
    });

    it('subscriptions to one view share one judge: each changed path is looked up once, however many subscribe', async () => {
      /** `fs` with the paths it lstats counted. */
      const counting = (fs: MemoryFileSystem) => {
        const looked: string[] = [];
        const counted = Object.create(fs) as MemoryFileSystem;
        counted.lstat = (path) => {
          looked.push(path);
          return fs.lstat(path);
        };
        return { counted, looked };
      };
      const { counted, looked } = counting(files());
      const feed = createChangeFeed();
      const subscriptions = Array.from({ length: 20 }, () => subscribeInView(feed, viewOf(undefined, counted)));
      for (const path of ['/ws/logs/a.log', '/ws/build/x.js', '/ws/pkg/out/gen.js', '/ws/pkg/b.ts', '/ws/marker']) feed.publish(present(path, '1'));
      const seen = await Promise.all(subscriptions.map((subscription) => upToMarker(subscription)));
      for (const frames of seen) expect(frames).toEqual(['/ws/logs/a.log', '/ws/pkg/b.ts']);
      expect(looked.filter((p) => p === '/ws/logs/a.log/pyvenv.cfg')).toHaveLength(1);
      expect(looked.filter((p) => p === '/ws/pkg/.gitignore')).toHaveLength(1);
      for (const subscription of subscriptions) subscription.close();
      // Another view (a FileSystem of its own) has a judge of its own.
      const other = counting(files());
      const otherFeed = createChangeFeed();
      expect(await framesFor(subscribeInView(otherFeed, viewOf(undefined, other.counted)), otherFeed, ['/ws/logs/a.log'])).toEqual(['/ws/logs/a.log']);
      expect(other.looked.filter((p) => p === '/ws/logs/a.log/pyvenv.cfg')).toHaveLength(1);
    });

    it('once its last subscription closed, the shared judge goes: rules changed while nobody listened count', async () => {
      const fs = files();
      const feed = createChangeFeed();
      const first = subscribeInView(feed, viewOf(undefined, fs));
      expect(await framesFor(first, feed, ['/ws/logs/app.log'])).toEqual(['/ws/logs/app.log']);
      first.close();
      await fs.write('/ws/.gitignore', 'logs/\n'); // no subscriber to see its change
      const second = subscribeInView(feed, viewOf(undefined, fs));
      expect(await framesFor(second, feed, ['/ws/logs/app.log', '/ws/a.txt'])).toEqual(['/ws/a.txt']);
      second.close();
      second.close(); // closing twice releases once
      expect(feed.subscriberCount).toBe(0);
    });

    it('with includeIgnored, everything the view sees', async () => {
      const feed = createChangeFeed();
      const subscription = subscribeInView(feed, viewOf(undefined, files()), { includeIgnored: true });
      const paths = ['/ws/node_modules/x/y.js', '/ws/.git/objects/ab/cd', '/ws/build/new.js', '/ws/pkg/out/gen.js'];
      expect(await framesFor(subscription, feed, paths)).toEqual(paths);
    });

    it('judges a change where the view shows it (an agent\'s copy lives in an excluded folder)', async () => {
      const fs = new MemoryFileSystem({ '/ws/.gitignore': '.agents/\nbuild/\n' });
      const feed = createChangeFeed();
      const view = viewOf(async (c) => ({ ...c, absolutePath: c.absolutePath.replace('/ws/.agents/a1/', '/ws/') }), fs);
      const subscription = subscribeInView(feed, view);
      expect(await framesFor(subscription, feed, ['/ws/.agents/a1/notes.txt', '/ws/.agents/a1/build/x.js'])).toEqual(['/ws/notes.txt']);
    });
  });
});
