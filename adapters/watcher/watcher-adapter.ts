/**
 * The OS watcher seam (types only, edge-clean): what core/changes/watcher-source.ts needs from a recursive
 * file watcher. The Node implementation is parcel-watcher-adapter.ts; Workers have none.
 */

export type WatcherEventKind = 'create' | 'update' | 'delete';

/** Something happened at `path` (absolute). The kind is a hint: consumers stat the path to learn its state. */
export interface WatcherEvent {
  path: string;
  kind: WatcherEventKind;
}

export interface WatchOptions {
  /** Folder names never entered at any depth (".git", "node_modules", package stores). */
  ignoreNames: readonly string[];
  /** Absolute folders never entered (the agents folder). */
  ignorePaths: readonly string[];
}

export interface WatchListener {
  /**
   * A batch of events. Every creation, change and deletion below the root is reported, except inside ignored
   * folders; a folder that appears with content already inside (`mkdir -p`, `mv`, `git checkout`) has that
   * content reported too. Batches may coalesce several events for one path.
   */
  onEvents(events: WatcherEvent[]): void;
  /** The watcher may have missed events (a kernel queue overflow, a failed watch): the listener must resync. */
  onError(error: Error): void;
}

export interface WatchHandle {
  /** Removes every watch; no event is delivered once this resolves. */
  close(): Promise<void>;
  /**
   * Watches with new ignore options from now on (a `.gitignore` edit re-included a folder), once this
   * resolves. Changes while the watches are rebuilt may be missed: the caller has its consumers resync.
   * Optional: a watcher without it keeps its first options.
   */
  update?(options: WatchOptions): Promise<void>;
}

export interface WatcherAdapter {
  /** Watches `root` recursively; resolves once the watches are in place (a change made after that is seen). */
  watch(root: string, listener: WatchListener, options: WatchOptions): Promise<WatchHandle>;
}
