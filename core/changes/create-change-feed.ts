/**
 * PLACEHOLDER implementation of the ChangeFeed API (core/changes/change-feed.ts), enough for the app to wire
 * it. OWNER: the change-feed work replaces it (bounded queues, coalescing, resync, watcher sources).
 */
import type { Change, ChangeFeed, ChangeSubscription, FeedFrame, SubscribeOptions } from './change-feed.ts';

export function createChangeFeed(): ChangeFeed {
  const subscribers = new Set<(change: Change) => void>();
  return {
    publish(change) {
      for (const deliver of subscribers) deliver(change);
    },
    subscribe(options: SubscribeOptions = {}): ChangeSubscription {
      const queue: FeedFrame[] = [{ kind: 'ready' }];
      let wake: (() => void) | undefined;
      let closed = false;
      const deliver = (change: Change) => {
        if (options.under && !change.absolutePath.startsWith(options.under)) return;
        queue.push({ kind: 'change', change });
        wake?.();
      };
      subscribers.add(deliver);
      return {
        close() {
          closed = true;
          subscribers.delete(deliver);
          wake?.();
        },
        async *[Symbol.asyncIterator]() {
          while (!closed) {
            const frame = queue.shift();
            if (frame) {
              yield frame;
              continue;
            }
            await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
          }
        },
      };
    },
    async close() {
      subscribers.clear();
    },
  };
}
