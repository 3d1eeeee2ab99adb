import type { ChangeFeed, ChangeSubscription, FeedFrame } from '../../core/changes/change-feed.ts';

export interface HandledFrames {
  /** Give this to the engine under test in place of the feed: its subscriptions are counted. */
  feed: ChangeFeed;
  /**
   * Resolves once `count` more `change`/`resync` frames (than every earlier call waited for) have been handled:
   * a `for await` consumer asks for its next frame only after its loop body is done with the last one.
   */
  handled(count?: number): Promise<void>;
}

/**
 * Wraps a ChangeFeed so a test can await an engine's subscription having taken and acted on what was
 * published, instead of sleeping and hoping it has. `ready` frames are not counted.
 */
export function handledFrames(inner: ChangeFeed): HandledFrames {
  let done = 0;
  let expected = 0;
  const waiters: Array<{ target: number; resolve: () => void }> = [];

  function oneHandled(): void {
    done++;
    for (const waiter of [...waiters]) {
      if (done < waiter.target) continue;
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }

  function counted(subscription: ChangeSubscription): ChangeSubscription {
    let holding: FeedFrame | undefined;
    const counting: ChangeSubscription = {
      async next() {
        if (holding && holding.kind !== 'ready') oneHandled();
        holding = undefined;
        const result = await subscription.next();
        if (!result.done) holding = result.value;
        return result;
      },
      close: () => subscription.close(),
      [Symbol.asyncIterator]() {
        return {
          next: () => counting.next(),
          return: async () => {
            subscription.close();
            return { done: true, value: undefined };
          },
        };
      },
    };
    return counting;
  }

  const feed: ChangeFeed = {
    publish: (change) => inner.publish(change),
    resync: () => inner.resync(),
    subscribe: (options) => counted(inner.subscribe(options)),
    attachSource: (source) => inner.attachSource(source),
    get subscriberCount() {
      return inner.subscriberCount;
    },
    close: () => inner.close(),
  };

  return {
    feed,
    handled(count = 1) {
      expected += count;
      const target = expected;
      if (done >= target) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ target, resolve }));
    },
  };
}
