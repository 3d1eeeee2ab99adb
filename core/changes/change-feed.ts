/**
 * The change feed: one engine that hears every change to the workspace (writes through the API, and on Node
 * the OS watcher) and hands it to any number of subscribers, each with its own bounded queue.
 * OWNER: the change-feed work (issue 5 §4). This file is the agreed API; the implementation fills it in.
 */

/** A present file (or folder) and its version, or a path observed gone. Paths are absolute real paths. */
export type Change = { absolutePath: string; version: string } | { absolutePath: string; absent: true };

/** What a subscriber receives (seed 003's WorkspaceFileWatchFrame, plus `resync` after an overflow). */
export type FeedFrame = { kind: 'ready' } | { kind: 'change'; change: Change } | { kind: 'resync' };

export interface SubscribeOptions {
  /** Only changes at or below this absolute path. */
  under?: string;
  /** Distinct pending paths before the queue overflows into one `resync` frame. */
  maxQueue?: number;
}

export interface ChangeSubscription extends AsyncIterable<FeedFrame> {
  /** Stops delivery and frees the queue; a pending `next()` resolves done. */
  close(): void;
}

export interface ChangeFeed {
  /** Reports one change to every subscriber whose filter admits it. */
  publish(change: Change): void;
  /** A new subscription; its first frame is `{ kind: 'ready' }`. */
  subscribe(options?: SubscribeOptions): ChangeSubscription;
  /** Ends every subscription and the sources feeding this feed. */
  close(): Promise<void>;
}
