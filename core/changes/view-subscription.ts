import { isInside } from '../../adapters/fs/posix-path.ts';
import type { WorkspaceView } from '../agents/workspace-view.ts';
import { asSubscription } from './as-subscription.ts';
import type { ChangeFeed, ChangeSubscription, FeedFrame, SubscribeOptions } from './change-feed.ts';
import { sharedIgnoredChanges } from './ignored-changes.ts';

export interface ViewSubscribeOptions extends Omit<SubscribeOptions, 'under'> {
  /**
   * Also deliver changes at or below ignored paths (./ignored-changes.ts): what the API wrote there, and what
   * the OS watcher saw of ignored files in folders it watches. It never enters ignored folders, so a shell's
   * writes inside them are not seen either way. Default false.
   */
  includeIgnored?: boolean;
}

/**
 * A subscription to the feed as one view of the workspace sees it (the shared tree, or an agent's copy):
 * each change mapped to the view's paths (`view.mapChange`, core/agents/agent-changes.ts), only changes
 * inside the view's root, and none at or below what tooling ignores in that view (judged on the view's own
 * files, after mapping: an agent's copy lives in a folder the repo excludes, its files are not ignored for
 * it). A change the view cannot place (its mapping failed) becomes a `resync`, so the consumer re-stats
 * rather than missing it.
 */
export function subscribeInView(feed: ChangeFeed, view: WorkspaceView, options: ViewSubscribeOptions = {}): ChangeSubscription {
  const { includeIgnored = false, ...subscribeOptions } = options;
  const subscription = feed.subscribe(subscribeOptions);
  const ignored = includeIgnored ? undefined : sharedIgnoredChanges(view.fs, view.root);
  const next = async (): Promise<IteratorResult<FeedFrame, undefined>> => {
    for (;;) {
      const result = await subscription.next();
      if (result.done) return result;
      if (result.value.kind === 'resync') ignored?.reset(); // rules files may have changed unseen
      if (result.value.kind !== 'change') return result;
      let change;
      try {
        change = view.mapChange ? await view.mapChange(result.value.change) : result.value.change;
      } catch {
        return { done: false, value: { kind: 'resync' } };
      }
      if (!change || !isInside(view.root, change.absolutePath)) continue;
      if (ignored) {
        ignored.notice(change);
        if (await ignored.isIgnored(change)) continue;
      }
      return { done: false, value: { kind: 'change', change } };
    }
  };
  return asSubscription(next, () => {
    subscription.close();
    ignored?.release();
  });
}
