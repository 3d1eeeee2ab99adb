/**
 * The change feed engine (the API is change-feed.ts). Edge-clean: it runs on Workers too, with the API's
 * own writes as its only source.
 */
import type {
  Change,
  ChangeFeed,
  ChangeFeedOptions,
  ChangeSink,
  ChangeSource,
  ChangeSubscription,
  StopSource,
  SubscribeOptions,
} from './change-feed.ts';
import { RecentStates } from './recent-states.ts';
import { Subscriber } from './subscription.ts';

export const DEFAULT_MAX_QUEUE = 1000;
export const DEFAULT_REMEMBERED_PATHS = 10_000;

export function createChangeFeed(options: ChangeFeedOptions = {}): ChangeFeed {
  const defaultMaxQueue = positive(options.maxQueue ?? DEFAULT_MAX_QUEUE, 'maxQueue');
  const recent = new RecentStates(positive(options.rememberedPaths ?? DEFAULT_REMEMBERED_PATHS, 'rememberedPaths'));
  const subscribers = new Set<Subscriber>();
  const stops = new Set<StopSource>();
  /** Sources whose `start` has not settled: a new subscriber's `ready` waits for them. */
  const starting = new Set<Promise<unknown>>();
  let closing: Promise<void> | undefined;

  const sink: ChangeSink = {
    publish: (change) => feed.publish(change),
    resync: () => feed.resync(),
  };

  async function stopQuietly(stop: StopSource): Promise<void> {
    try {
      await stop();
    } catch (error) {
      console.error('change feed: a source failed to stop:', error);
    }
  }

  const feed: ChangeFeed = {
    publish(change: Change) {
      // Remembered even with nobody listening, so the watcher's late echo of it is not news to a newcomer.
      if (closing || !recent.admit(change)) return;
      for (const subscriber of subscribers) {
        if (subscriber.admits(change.absolutePath)) subscriber.deliver(change);
      }
    },

    resync() {
      if (closing) return;
      for (const subscriber of subscribers) subscriber.resync();
    },

    subscribe(subscribeOptions: SubscribeOptions = {}): ChangeSubscription {
      const maxQueue = positive(subscribeOptions.maxQueue ?? defaultMaxQueue, 'maxQueue');
      const subscriber = new Subscriber(
        subscribeOptions.under,
        maxQueue,
        (closed) => subscribers.delete(closed),
      );
      const handle = subscriber.handle();
      if (closing) {
        subscriber.close();
        return handle;
      }
      subscribers.add(subscriber);
      if (starting.size === 0) subscriber.releaseReady();
      else void Promise.allSettled([...starting]).then(() => subscriber.releaseReady());
      return handle;
    },

    async attachSource(source: ChangeSource): Promise<StopSource> {
      if (closing) throw new Error('the change feed is closed');
      const attached = (async () => {
        const stop = await source.start(sink);
        if (closing) {
          await stopQuietly(stop);
          throw new Error('the change feed was closed while the source started');
        }
        stops.add(stop);
        return stop;
      })();
      starting.add(attached);
      try {
        const stop = await attached;
        return async () => {
          if (stops.delete(stop)) await stopQuietly(stop);
        };
      } finally {
        starting.delete(attached);
      }
    },

    get subscriberCount() {
      return subscribers.size;
    },

    close() {
      closing ??= (async () => {
        for (const subscriber of [...subscribers]) subscriber.close();
        // A source still starting stops itself once started (it sees `closing`): wait for that too.
        await Promise.allSettled([...starting]);
        const pending = [...stops];
        stops.clear();
        await Promise.all(pending.map(stopQuietly));
      })();
      return closing;
    },
  };
  return feed;
}

function positive(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
  return value;
}
