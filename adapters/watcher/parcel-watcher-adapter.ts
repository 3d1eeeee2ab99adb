/**
 * The Node WatcherAdapter, on @parcel/watcher 2.6.0 (what VS Code uses: native inotify on Linux, one watch
 * per folder, ignored folders never entered). Chosen over chokidar 5 by measurement (bench/watcher-choice.ts):
 * chokidar holds one inotify watch per *file* and drops a path's second change within 50 ms (a burst loses
 * its final state), and needs far more memory and time to start on a large tree.
 *
 * parcel's own gap, and what this adapter adds (parcel-bundler/watcher#97, #243, open): on Linux a folder is
 * watched only once parcel hears it was created, so what lands inside it before that — `mkdir -p a/b/c`,
 * `mv` of a folder into the tree, `git checkout` creating folders with files — is never reported, and the
 * folders below it are never watched. So for every folder reported as created, this adapter
 * 1. lists it (one level); if it holds folders, subscribes to it as well (a nested parcel subscription, which
 *    crawls and watches the whole subtree — the kernel shares watches on the same folder, so nothing is
 *    watched twice), kept until that folder is deleted or moved away;
 * 2. then walks it (bounded by `maxCrawlEntries`) and reports everything already inside as created.
 * Past `maxNestedSubscriptions` it re-subscribes the root instead (a fresh crawl watches everything) and
 * reports an error so the feed resyncs. A crawl past its bound also reports an error (resync).
 * (parcel shares one native watcher, and one folder tree, between subscriptions to the same folder with the
 * same ignore list: two sessions on one root in one process share watches, which is harmless.)
 *
 * parcel debounces: the first event after a quiet half second is delivered at once, later ones in 50 ms
 * batches. Inotify queue overflows are dropped silently by parcel 2.6.0 (nothing here can see them).
 * Every subscription is unsubscribed on `close` (2.5.1 aborted with a double free when a process exited
 * with one open; 2.6.0 is pinned and we still never leave one open).
 */
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import parcelWatcher, { type AsyncSubscription, type Event as ParcelEvent } from '@parcel/watcher';
import { isInside } from '../fs/posix-path.ts';
import type { WatchHandle, WatcherAdapter, WatcherEvent, WatchListener, WatchOptions } from './watcher-adapter.ts';

export interface ParcelWatcherOptions {
  /** Nested subscriptions (see above) alive at once before the root is re-subscribed instead (32). */
  maxNestedSubscriptions?: number;
  /** Entries reported from inside one newly appeared folder before giving up and asking for a resync (10 000). */
  maxCrawlEntries?: number;
}

export class ParcelWatcherAdapter implements WatcherAdapter {
  constructor(private readonly options: ParcelWatcherOptions = {}) {}

  async watch(root: string, listener: WatchListener, options: WatchOptions): Promise<WatchHandle> {
    const session = new WatchSession(root, listener, options, {
      maxNested: this.options.maxNestedSubscriptions ?? 32,
      maxCrawl: this.options.maxCrawlEntries ?? 10_000,
    });
    await session.start();
    return { close: () => session.close(), update: (next) => session.update(next) };
  }
}

/** inotify, named, on Linux (see `subscribe`); parcel's default elsewhere. */
const BACKEND: { backend?: 'inotify' } = process.platform === 'linux' ? { backend: 'inotify' } : {};

const NAME_WITH_GLOB_CHARACTERS = /[*?[\]{}()!\\/]/;
/** What parcel's `is-glob` may take for a glob: a path with any of these is not handed to parcel (see `parcelIgnore`). */
const PATH_WITH_GLOB_CHARACTERS = /[*?[\]{}()!+@|\\]/;

/**
 * parcel's `ignore` list: names as globs to match at any depth (parcel takes a plain string as a path relative
 * to the watched folder), absolute paths as paths (a prefix match on the folder). A path that parcel would read
 * as a glob (`build (old)`) is left out: that folder is watched, and the adapter still drops its events.
 */
function parcelIgnore(options: WatchOptions): { ignore: string[] } {
  for (const name of options.ignoreNames) {
    if (name === '' || NAME_WITH_GLOB_CHARACTERS.test(name)) throw new Error(`not a plain folder name: ${JSON.stringify(name)}`);
  }
  const paths = options.ignorePaths.filter((path) => !PATH_WITH_GLOB_CHARACTERS.test(path));
  return { ignore: [...options.ignoreNames.map((name) => `**/${name}`), ...paths] };
}

class WatchSession {
  private rootSubscription: AsyncSubscription | undefined;
  private readonly nested = new Map<string, Promise<AsyncSubscription | undefined>>();
  private parcelOptions: { ignore: string[] };
  private ignoredNames: ReadonlySet<string>;
  /** The last `update` (updates run one at a time). */
  private updating: Promise<void> = Promise.resolve();
  /** Work started from callbacks (inspections, re-subscriptions) that `close` waits for. */
  private readonly inflight = new Set<Promise<unknown>>();
  private restarting = false;
  private closed = false;

  constructor(
    private readonly root: string,
    private readonly listener: WatchListener,
    private options: WatchOptions,
    private readonly limits: { maxNested: number; maxCrawl: number },
  ) {
    this.parcelOptions = parcelIgnore(options);
    this.ignoredNames = new Set(options.ignoreNames);
  }

  async start(): Promise<void> {
    this.rootSubscription = await this.subscribe(this.root);
  }

  /**
   * New ignore options: every subscription goes, then the root is subscribed afresh with them. In that order
   * for the reason `resubscribeRoot` gives (parcel would reuse its old folder tree, which never held the
   * folders ignored until now), so events in between are missed: the caller resyncs.
   */
  update(options: WatchOptions): Promise<void> {
    const parcelOptions = parcelIgnore(options); // a bad name throws here, before anything changes
    const run = this.updating.then(async () => {
      if (this.closed) return;
      this.options = options;
      this.parcelOptions = parcelOptions;
      this.ignoredNames = new Set(options.ignoreNames);
      await this.resubscribeRoot(false);
    });
    const settled = run.catch(() => {});
    this.updating = settled;
    this.inflight.add(settled); // `close` waits for it
    void settled.finally(() => this.inflight.delete(settled));
    return run;
  }

  async close(): Promise<void> {
    this.closed = true;
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
    const subscriptions = [this.rootSubscription, ...(await Promise.all(this.nested.values()))];
    this.rootSubscription = undefined;
    this.nested.clear();
    await Promise.all(subscriptions.map((subscription) => subscription?.unsubscribe().catch(() => {})));
  }

  private subscribe(dir: string): Promise<AsyncSubscription> {
    // inotify named, not parcel's default: on Linux the default first probes for watchman with popen and, where
    // watchman is not installed, never pcloses it — one pipe fd (and a zombie) lost each time parcel starts its
    // shared native watcher, i.e. whenever a subscription follows the last one's close. Where watchman is
    // installed the default would be watchman, not the inotify described above.
    return parcelWatcher.subscribe(dir, (error, events) => this.onBatch(error, events), { ...this.parcelOptions, ...BACKEND });
  }

  private onBatch(error: Error | null, events: ParcelEvent[]): void {
    if (this.closed) return;
    if (error) this.listener.onError(error);
    if (events.length === 0) return;
    this.listener.onEvents(events.map((event) => ({ path: event.path, kind: event.type })));
    for (const event of events) {
      if (event.type === 'delete') this.dropNestedUnder(event.path);
    }
    const created = events.filter((event) => event.type === 'create').map((event) => event.path);
    if (created.length > 0) this.track(this.inspectCreated(created));
  }

  private track(work: Promise<unknown>): void {
    const settled = work.catch((error: unknown) => {
      if (!this.closed) this.listener.onError(error instanceof Error ? error : new Error(String(error)));
    });
    this.inflight.add(settled);
    void settled.finally(() => this.inflight.delete(settled));
  }

  /** New folders: watch what is inside them (nested subscription), then report what is already there. */
  private async inspectCreated(paths: string[]): Promise<void> {
    for (const path of paths) {
      if (this.closed) return;
      let isFolder: boolean;
      try {
        isFolder = (await lstat(path)).isDirectory();
      } catch {
        continue; // gone again (a temp file): its delete event follows
      }
      if (!isFolder || this.isIgnored(path)) continue;
      let entries;
      try {
        entries = await readdir(path, { withFileTypes: true });
      } catch {
        continue;
      }
      if (entries.some((entry) => entry.isDirectory() && !this.ignoredNames.has(entry.name))) await this.watchNested(path);
      await this.reportContents(path);
    }
  }

  private async watchNested(dir: string): Promise<void> {
    if (this.nested.has(dir) || this.restarting) return;
    if (this.nested.size >= this.limits.maxNested) {
      await this.resubscribeRoot();
      return;
    }
    const subscribing = this.subscribe(dir).then(
      (subscription) => subscription,
      () => undefined, // gone meanwhile: its delete event says so
    );
    this.nested.set(dir, subscribing); // `close` unsubscribes it, once this work has settled
    await subscribing;
  }

  /**
   * Too many nested subscriptions: drop them all and the root's, then subscribe the root afresh, whose crawl
   * watches every folder there is now. In that order on purpose: parcel keeps one folder tree per watched
   * folder for as long as a subscription uses it, so subscribing the root while the old subscription lives
   * would reuse the old, incomplete tree instead of crawling. Events in between are missed: hence the resync.
   */
  private async resubscribeRoot(tell = true): Promise<void> {
    this.restarting = true;
    try {
      const old = [this.rootSubscription, ...(await Promise.all(this.nested.values()))];
      this.rootSubscription = undefined;
      this.nested.clear();
      await Promise.all(old.map((subscription) => subscription?.unsubscribe().catch(() => {})));
      if (!this.closed) this.rootSubscription = await this.subscribe(this.root);
    } finally {
      this.restarting = false;
    }
    if (tell && !this.closed) this.listener.onError(new Error('watches rebuilt after many new folders: resync'));
  }

  private dropNestedUnder(path: string): void {
    for (const [dir, subscribing] of this.nested) {
      if (!isInside(path, dir)) continue;
      this.nested.delete(dir);
      this.track(subscribing.then((subscription) => subscription?.unsubscribe()));
    }
  }

  /** Reports every entry below `dir` (ignored folders skipped) as created, up to the crawl bound. */
  private async reportContents(dir: string): Promise<void> {
    const folders = [dir];
    let reported = 0;
    while (folders.length > 0 && !this.closed) {
      const folder = folders.shift()!;
      let entries;
      try {
        entries = await readdir(folder, { withFileTypes: true });
      } catch {
        continue;
      }
      const batch: WatcherEvent[] = [];
      for (const entry of entries) {
        const path = join(folder, entry.name);
        if (this.isIgnored(path)) continue;
        if (++reported > this.limits.maxCrawl) {
          this.listener.onEvents(batch);
          this.listener.onError(new Error(`more than ${this.limits.maxCrawl} entries appeared in ${dir}: resync`));
          return;
        }
        batch.push({ path, kind: 'create' });
        if (entry.isDirectory()) folders.push(path);
      }
      if (batch.length > 0 && !this.closed) this.listener.onEvents(batch);
    }
  }

  private isIgnored(path: string): boolean {
    const name = path.slice(path.lastIndexOf('/') + 1);
    return this.ignoredNames.has(name) || this.options.ignorePaths.some((ignored) => isInside(ignored, path));
  }
}
