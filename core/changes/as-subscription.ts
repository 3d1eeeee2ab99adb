import type { ChangeSubscription, FeedFrame } from './change-feed.ts';

/**
 * The consumer's face of a subscription, from its `next` and `close`: the feed's own subscribers and the
 * per-view mapping over them (view-subscription.ts) hand out the same object.
 */
export function asSubscription(
  next: () => Promise<IteratorResult<FeedFrame, undefined>>,
  close: () => void,
): ChangeSubscription {
  return {
    next,
    close,
    [Symbol.asyncIterator]: () => ({
      next,
      // `break` out of a `for await` (or an exception in its body) ends the subscription.
      return: async () => {
        close();
        return { done: true, value: undefined };
      },
    }),
  };
}
