/**
 * A change source whose published changes are also shown to `observe` (before the feed gets them): how the git
 * state source (git-state-source.ts) hears the file watcher's new folders without a subscription of its own.
 */
import type { Change, ChangeSource } from './change-feed.ts';

export function observedSource(source: ChangeSource, observe: (change: Change) => void): ChangeSource {
  return {
    start: (sink) =>
      source.start({
        publish(change) {
          observe(change);
          sink.publish(change);
        },
        resync: () => sink.resync(),
      }),
  };
}
