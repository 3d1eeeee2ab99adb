import { describe, expect, it } from 'vitest';
import type { Change, ChangeSink, ChangeSubscription, FeedFrame } from '../../../core/changes/change-feed.ts';
import { createChangeFeed } from '../../../core/changes/create-change-feed.ts';
import { deferred } from '../../support/gates.ts';

const present = (absolutePath: string, version: string): Change => ({ absolutePath, version });
const absent = (absolutePath: string): Change => ({ absolutePath, absent: true });
const change = (c: Change): FeedFrame => ({ kind: 'change', change: c });
const READY: FeedFrame = { kind: 'ready' };
const RESYNC: FeedFrame = { kind: 'resync' };

/** The frames a subscription has ready now, without waiting for more (a pending next() after them stays pending). */
async function drain(subscription: ChangeSubscription): Promise<FeedFrame[]> {
  const frames: FeedFrame[] = [];
  for (;;) {
    const next = subscription.next();
    const result = await Promise.race([next, new Promise<'empty'>((resolve) => setImmediate(() => resolve('empty')))]);
    if (result === 'empty') {
      // Leave nothing dangling: a later frame would be consumed by the abandoned next().
      subscription.close();
      await next;
      return frames;
    }
    if (result.done) return frames;
    frames.push(result.value);
  }
}


describe('change feed: delivery', () => {
  it('yields ready first, then every change published after subscribe(), queued before the first pull', async () => {
    const feed = createChangeFeed();
    feed.publish(present('/ws/before.txt', '1')); // before the subscription: not delivered
    const subscription = feed.subscribe();
    feed.publish(present('/ws/a.txt', '2'));
    feed.publish(absent('/ws/b.txt'));
    expect(await drain(subscription)).toEqual([READY, change(present('/ws/a.txt', '2')), change(absent('/ws/b.txt'))]);
  });

  it('wakes a consumer already waiting', async () => {
    const feed = createChangeFeed();
    const subscription = feed.subscribe();
    expect(await subscription.next()).toEqual({ done: false, value: READY });
    const waiting = subscription.next();
    feed.publish(present('/ws/a.txt', '7'));
    expect(await waiting).toEqual({ done: false, value: change(present('/ws/a.txt', '7')) });
  });

  it('reports to every subscriber whose `under` admits the path: at or below it, on segment boundaries', async () => {
    const feed = createChangeFeed();
    const all = feed.subscribe();
    const underA = feed.subscribe({ under: '/ws/a' });
    for (const path of ['/ws/a', '/ws/a/x.txt', '/ws/ab/y.txt', '/ws/b.txt', '/other/a/z']) feed.publish(present(path, 'v'));
    expect(await drain(underA)).toEqual([READY, change(present('/ws/a', 'v')), change(present('/ws/a/x.txt', 'v'))]);
    expect((await drain(all)).length).toBe(6);
  });

  it('works as an async iterable; leaving the loop closes the subscription', async () => {
    const feed = createChangeFeed();
    const subscription = feed.subscribe();
    feed.publish(present('/ws/a', '1'));
    feed.publish(present('/ws/b', '2'));
    const seen: FeedFrame[] = [];
    for await (const frame of subscription) {
      seen.push(frame);
      if (seen.length === 2) break;
    }
    expect(seen).toEqual([READY, change(present('/ws/a', '1'))]);
    expect(feed.subscriberCount).toBe(0);
    expect(await subscription.next()).toEqual({ done: true, value: undefined });
  });
});

describe('change feed: coalescing and the queue bound', () => {
  it('coalesces a burst to one path into its latest state, keeping its place in line', async () => {
    const feed = createChangeFeed();
    const subscription = feed.subscribe();
    feed.publish(present('/ws/a', '1'));
    feed.publish(present('/ws/b', '1'));
    feed.publish(present('/ws/a', '2'));
    feed.publish(present('/ws/a', '3'));
    feed.publish(absent('/ws/b'));
    expect(await drain(subscription)).toEqual([READY, change(present('/ws/a', '3')), change(absent('/ws/b'))]);
  });

  it('an overflowing subscriber loses its queue and gets exactly one resync, then the changes after it', async () => {
    const feed = createChangeFeed({ maxQueue: 3 });
    const slow = feed.subscribe();
    const roomy = feed.subscribe({ maxQueue: 100 });
    // f3 overflows the queue (f0..f2 dropped), f4..f6 refill it and f7 overflows it again: still one resync.
    for (let i = 0; i < 8; i++) feed.publish(present(`/ws/f${i}`, '1'));
    feed.publish(present('/ws/after', '1'));
    expect(await drain(slow)).toEqual([READY, RESYNC, change(present('/ws/after', '1'))]);
    // Another subscriber's bound is its own.
    expect((await drain(roomy)).length).toBe(1 + 9);
  });

  it('coalescing a pending path does not count against the bound', async () => {
    const feed = createChangeFeed({ maxQueue: 2 });
    const subscription = feed.subscribe();
    for (let i = 0; i < 50; i++) feed.publish(present(i % 2 === 0 ? '/ws/a' : '/ws/b', String(i)));
    expect(await drain(subscription)).toEqual([READY, change(present('/ws/a', '48')), change(present('/ws/b', '49'))]);
  });

  it('a later overflow, after the resync was delivered, is a new resync', async () => {
    const feed = createChangeFeed({ maxQueue: 1 });
    const subscription = feed.subscribe();
    expect(await subscription.next()).toEqual({ done: false, value: READY });
    feed.publish(present('/ws/a', '1'));
    feed.publish(present('/ws/b', '1'));
    expect(await subscription.next()).toEqual({ done: false, value: RESYNC });
    feed.publish(present('/ws/c', '1'));
    feed.publish(present('/ws/d', '1'));
    expect(await drain(subscription)).toEqual([RESYNC]);
  });

  it('a stalled consumer holds at most maxQueue changes however many are published', async () => {
    const feed = createChangeFeed({ maxQueue: 1000 });
    const stalled = feed.subscribe();
    for (let i = 0; i < 100_000; i++) feed.publish(present(`/ws/file-${i}`, '1'));
    const frames = await drain(stalled);
    expect(frames.slice(0, 2)).toEqual([READY, RESYNC]);
    // Each overflow takes 1001 publishes (1000 queued, the next one overflows): what is left after the last.
    expect(frames.length).toBe(2 + (100_000 % 1001));
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => createChangeFeed({ maxQueue: 0 })).toThrow(RangeError);
    expect(() => createChangeFeed().subscribe({ maxQueue: 1.5 })).toThrow(RangeError);
  });
});

describe('change feed: duplicate suppression', () => {
  it('delivers the same state of a path once (our write path and the OS watcher both report it)', async () => {
    const feed = createChangeFeed();
    const subscription = feed.subscribe();
    feed.publish(present('/ws/a', '5'));
    expect(await subscription.next()).toEqual({ done: false, value: READY });
    expect(await subscription.next()).toEqual({ done: false, value: change(present('/ws/a', '5')) });
    feed.publish(present('/ws/a', '5')); // the watcher's echo
    feed.publish(absent('/ws/a'));
    expect(await subscription.next()).toEqual({ done: false, value: change(absent('/ws/a')) });
    feed.publish(absent('/ws/a'));
    feed.publish(present('/ws/a', '5')); // re-created with that version: a new state again
    expect(await drain(subscription)).toEqual([change(present('/ws/a', '5'))]);
  });

  it('remembers states published while nobody listened, so a newcomer does not get their echo', async () => {
    const feed = createChangeFeed();
    feed.publish(present('/ws/a', '1'));
    const subscription = feed.subscribe();
    feed.publish(present('/ws/a', '1'));
    expect(await drain(subscription)).toEqual([READY]);
  });

  it('remembers a bounded number of paths (between rememberedPaths and twice that), oldest forgotten first', async () => {
    const feed = createChangeFeed({ rememberedPaths: 2 });
    const subscription = feed.subscribe();
    for (const name of ['a', 'b', 'c', 'd', 'e']) feed.publish(present(`/ws/${name}`, '1'));
    expect((await drain(subscription)).length).toBe(1 + 5);
    const again = feed.subscribe();
    feed.publish(present('/ws/a', '1')); // forgotten (four paths came after it): delivered again, a harmless repeat
    feed.publish(present('/ws/d', '1')); // still remembered: dropped
    feed.publish(present('/ws/e', '1')); // still remembered: dropped
    expect(await drain(again)).toEqual([READY, change(present('/ws/a', '1'))]);
  });
});

describe('change feed: sources, resync and close', () => {
  it('a source reports through its sink; resync reaches every subscriber once', async () => {
    const feed = createChangeFeed();
    let sink!: ChangeSink;
    await feed.attachSource({ start: (s) => ((sink = s), () => {}) });
    const a = feed.subscribe();
    const b = feed.subscribe();
    sink.publish(present('/ws/x', '1'));
    sink.resync();
    sink.resync();
    sink.publish(present('/ws/y', '1'));
    expect(await drain(a)).toEqual([READY, RESYNC, change(present('/ws/y', '1'))]);
    expect(await drain(b)).toEqual([READY, RESYNC, change(present('/ws/y', '1'))]);
  });

  it('holds back `ready` until the sources still starting have started, queueing meanwhile', async () => {
    const feed = createChangeFeed();
    const started = deferred<() => void>();
    const attached = feed.attachSource({ start: () => started.promise });
    const subscription = feed.subscribe();
    let first: FeedFrame | undefined;
    const next = subscription.next().then((result) => (first = result.value));
    feed.publish(present('/ws/early', '1'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(first).toBeUndefined();
    started.resolve(() => {});
    await attached;
    await next;
    expect(first).toEqual(READY);
    expect(await drain(subscription)).toEqual([change(present('/ws/early', '1'))]);
  });

  it('a source that fails to start rejects attachSource and does not hold `ready` back', async () => {
    const feed = createChangeFeed();
    const failing = feed.attachSource({ start: () => Promise.reject(new Error('ENOSPC: inotify watch limit')) });
    const subscription = feed.subscribe();
    await expect(failing).rejects.toThrow('ENOSPC');
    expect(await subscription.next()).toEqual({ done: false, value: READY });
  });

  it('detaching stops the source once', async () => {
    const feed = createChangeFeed();
    let stops = 0;
    const detach = await feed.attachSource({ start: () => () => void stops++ });
    await detach();
    await detach();
    await feed.close();
    expect(stops).toBe(1);
  });

  it('close() ends every subscription (a pending next resolves done) and stops every source', async () => {
    const feed = createChangeFeed();
    const stopped: string[] = [];
    await feed.attachSource({ start: () => async () => void stopped.push('watcher') });
    const subscription = feed.subscribe();
    await subscription.next();
    const pending = subscription.next();
    await feed.close();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(stopped).toEqual(['watcher']);
    expect(feed.subscriberCount).toBe(0);
    // Afterwards: publishes are dropped, a new subscription is already ended, sources are refused.
    feed.publish(present('/ws/a', '1'));
    expect(await feed.subscribe().next()).toEqual({ done: true, value: undefined });
    await expect(feed.attachSource({ start: () => () => {} })).rejects.toThrow('closed');
  });

  it('close() waits for a source still starting and stops it once it has started', async () => {
    const feed = createChangeFeed();
    const started = deferred<() => void>();
    const events: string[] = [];
    const attached = feed.attachSource({ start: () => started.promise });
    const closing = feed.close().then(() => events.push('closed'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(events).toEqual([]);
    started.resolve(() => void events.push('stopped'));
    await closing;
    expect(events).toEqual(['stopped', 'closed']);
    await expect(attached).rejects.toThrow('closed while the source started');
  });

  it('closing one subscription leaves the others', async () => {
    const feed = createChangeFeed();
    const a = feed.subscribe();
    const b = feed.subscribe();
    a.close();
    a.close();
    expect(feed.subscriberCount).toBe(1);
    feed.publish(present('/ws/a', '1'));
    expect(await drain(b)).toEqual([READY, change(present('/ws/a', '1'))]);
  });
});
