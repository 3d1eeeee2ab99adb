import { isInside } from '../../adapters/fs/posix-path.ts';
import type { WorkspaceView } from '../agents/workspace-view.ts';
import { asSubscription } from './as-subscription.ts';
import type { ChangeFeed, ChangeSubscription, FeedFrame, SubscribeOptions } from './change-feed.ts';

/**
 * A subscription to the feed as one view of the workspace sees it (the shared tree, or an agent's copy):
 * each change mapped to the view's paths (`view.mapChange`, core/agents/agent-changes.ts), and only changes
 * inside the view's root. A change the view cannot place (its mapping failed) becomes a `resync`, so the
 * consumer re-stats rather than missing it.
 */
export function subscribeInView(feed: ChangeFeed, view: WorkspaceView, options: Omit<SubscribeOptions, 'under'> = {}): ChangeSubscription {
  const subscription = feed.subscribe(options);
  const next = async (): Promise<IteratorResult<FeedFrame, undefined>> => {
    for (;;) {
      const result = await subscription.next();
      if (result.done || result.value.kind !== 'change') return result;
      let change;
      try {
        change = view.mapChange ? await view.mapChange(result.value.change) : result.value.change;
      } catch {
        return { done: false, value: { kind: 'resync' } };
      }
      if (change && isInside(view.root, change.absolutePath)) return { done: false, value: { kind: 'change', change } };
    }
  };
  return asSubscription(next, () => subscription.close());
}
