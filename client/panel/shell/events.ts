/** The panel's own events, between its parts (tree, editor, search, terminals, the live feed). */
export interface PanelEventMap {
  /** A file or folder changed (the change feed, or one of the panel's own writes). `path` is root-relative. */
  'fs-change': { path: string; kind: 'created' | 'modified' | 'deleted' | 'renamed' | 'resync'; from?: string };
  /** Git status of the workspace, root-relative path → a short code (`M`, `A`, `?`, `D`, …). */
  'git-status': { files: ReadonlyMap<string, string> };
  /**
   * A repo's `.git` changed (a commit, checkout, stash…): read git status again. `repo` is the repo's root-relative
   * folder (`.` for the root's own). Told by the change feed, heard by the git badges.
   */
  'git-change': { repo: string };
  /** A call was refused (401): the token is missing, wrong, or no longer the daemon's. The shell signs out. */
  'unauthorized': { message: string };
}

export type PanelEventName = keyof PanelEventMap;

export class PanelEvents {
  readonly #listeners = new Map<string, Set<(payload: never) => void>>();

  on<E extends PanelEventName>(event: E, listener: (payload: PanelEventMap[E]) => void): () => void {
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    set.add(listener as (payload: never) => void);
    return () => set.delete(listener as (payload: never) => void);
  }

  emit<E extends PanelEventName>(event: E, payload: PanelEventMap[E]): void {
    for (const listener of this.#listeners.get(event) ?? []) {
      try {
        (listener as (payload: PanelEventMap[E]) => void)(payload);
      } catch (error) {
        console.warn(`panel: a ${event} listener failed`, error);
      }
    }
  }
}
