/**
 * The change feed: one engine that hears every change to the workspace (writes through the API, and on Node
 * the OS watcher) and hands it to any number of subscribers, each with its own bounded queue.
 * The engine is core/changes/create-change-feed.ts; the OS watcher arrives as a source (watcher-source.ts).
 */

/** A present file (or folder) and its version, or a path observed gone. Paths are absolute real paths. */
export type Change = { absolutePath: string; version: string } | { absolutePath: string; absent: true };

/** What a subscriber receives (workspace-files' WorkspaceFileWatchFrame, plus `resync` after an overflow). */
export type FeedFrame = { kind: 'ready' } | { kind: 'change'; change: Change } | { kind: 'resync' };

export interface SubscribeOptions {
  /** Only changes at or below this absolute path. */
  under?: string;
  /** Distinct pending paths before the queue overflows into one `resync` frame (default: the feed's). */
  maxQueue?: number;
}

export interface ChangeSubscription extends AsyncIterable<FeedFrame> {
  /** The next frame; resolves `done` once the subscription is closed. One consumer per subscription. */
  next(): Promise<IteratorResult<FeedFrame, undefined>>;
  /** Stops delivery and frees the queue; a pending `next()` resolves done. Ending a `for await` closes it too. */
  close(): void;
}

/** What a source reports to. */
export interface ChangeSink {
  publish(change: Change): void;
  /** The source may have missed changes (a watcher overflowed or failed): every subscriber re-stats. */
  resync(): void;
}

/** Stops a source; the feed awaits it on close, so a native watcher is always unsubscribed. */
export type StopSource = () => void | Promise<void>;

/**
 * Something that reports changes: the OS watcher today, later a search index rebuild or a terminal's cwd.
 * `start` resolves once the source is really reporting (a watcher has its watches in place).
 */
export interface ChangeSource {
  start(sink: ChangeSink): StopSource | Promise<StopSource>;
}

export interface ChangeFeedOptions {
  /** Default per-subscriber bound on distinct pending paths (1000). */
  maxQueue?: number;
  /** How many paths' last published state is remembered to drop repeats (10 000). */
  rememberedPaths?: number;
}

export interface ChangeFeed {
  /** Reports one change to every subscriber whose filter admits it; a repeat of a path's last state is dropped. */
  publish(change: Change): void;
  /** Every subscriber gets one `resync` frame in place of what it had pending. */
  resync(): void;
  /**
   * A new subscription; its first frame is `{ kind: 'ready' }`, held back until every source that is still
   * starting has started, so `ready` means "from here on everything is reported". Changes published from
   * this call on are queued even before the consumer pulls.
   */
  subscribe(options?: SubscribeOptions): ChangeSubscription;
  /** Starts a source feeding this feed; resolves with a function that detaches (stops) it. */
  attachSource(source: ChangeSource): Promise<StopSource>;
  /** Open subscriptions (for tests and diagnostics). */
  readonly subscriberCount: number;
  /** Ends every subscription and stops every source (awaiting sources that are still starting). */
  close(): Promise<void>;
}
