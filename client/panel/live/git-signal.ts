import type { PanelEvents } from '../shell/events.ts';

/**
 * Between the change feed and the git badges (both in live/): the feed's git frames (`<repo>/.git` changed: a
 * commit, checkout, stash…) say "read git status again". Kept here rather than on the panel's event bus, since
 * no other part needs it. Keyed by the panel's event bus, so each panel instance has its own.
 */
const listeners = new WeakMap<PanelEvents, Set<(repo: string) => void>>();

export function onGitChange(events: PanelEvents, listener: (repo: string) => void): () => void {
  let set = listeners.get(events);
  if (!set) listeners.set(events, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

/** `repo` is the repo's root-relative folder (`.` for the root's own). */
export function emitGitChange(events: PanelEvents, repo: string): void {
  for (const listener of listeners.get(events) ?? []) listener(repo);
}
