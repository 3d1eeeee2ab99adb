/**
 * The OS watcher as a change-feed source: what a shell, an editor or `git checkout` does to the workspace
 * reaches the feed too (the original product saw its agents' writes only: docs/workspace-files.md#the-change-feed).
 *
 * The watcher says *that* a path changed; this source says *how*: it stats each reported path (present → its
 * version, gone → absent) and publishes that. Paths reported while earlier ones are still being looked at
 * wait in one set, so a burst to one file costs one stat per round, not one per event. More distinct paths
 * pending than `maxPending` (a checkout of a large branch) are not stat'ed one by one at all: subscribers are
 * told to resync instead, which is what they would get from their own queue bound anyway.
 *
 * Ignored paths: the watcher does not enter the ignored folder names and paths, nor (by default) the folders
 * the workspace's ignore rules exclude (core/ignore/ignored-folders.ts: `build/`, a nested `.gitignore`'s
 * `out/`), so they cost no kernel watch. That list is found by a walk at start and found again below a
 * `.gitignore` the watcher sees change; when it changed the watcher is re-subscribed with it, and when a folder
 * left it (now tracked, unseen until now) subscribers are told to resync. A folder the rules ignore that
 * appears later (a fresh `dist/`) is watched until the next such re-subscription: the change streams filter
 * what it reports (./ignored-changes.ts). The `.gitignore` rules, when `gitignore` is on, also filter what
 * this source publishes (off in the daemon: in-process consumers such as the search file list follow ignored
 * files; the streams clients read filter them). Our own writes in flight (a temp file before its rename, a
 * staging folder before it moves into place: adapters/fs/leftover-names.ts) are never reported, nor stat'ed: the
 * write reports its target when it lands. The stat goes
 * through the FileSystem, so the version is the same one the API's own reads and writes report, and the
 * feed's duplicate suppression drops the watcher's echo of an API write.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { isWriteInFlight } from '../../adapters/fs/leftover-names.ts';
import { isInside, join, relativeTo } from '../../adapters/fs/posix-path.ts';
import type { WatchHandle, WatcherAdapter, WatcherEvent } from '../../adapters/watcher/watcher-adapter.ts';
import { createIgnoreRules, staleRulesFolder, type IgnoreRules } from '../ignore/ignore-rules.ts';
import { DEFAULT_MAX_IGNORED_FOLDERS, findIgnoredFolders } from '../ignore/ignored-folders.ts';
import { STORE_FOLDERS } from '../ignore/package-stores.ts';
import type { Change, ChangeSink, ChangeSource } from './change-feed.ts';

/**
 * Folders the watcher never enters by default: VCS internals and the package stores core/ignore always
 * ignores by name (the stores it recognises otherwise — `.yarn/cache`, virtualenvs — are watched, and their
 * events dropped by the rules).
 */
export const DEFAULT_IGNORED_FOLDER_NAMES: readonly string[] = ['.git', '.hg', '.svn', ...STORE_FOLDERS];

export interface WatcherSourceOptions {
  watcher: WatcherAdapter;
  /** What reported paths are stat'ed through (reads only). */
  fs: FileSystem;
  /** The workspace root as a real path (resolved when the source starts). */
  root: () => Promise<string>;
  /** Folder names the watcher never enters (default: DEFAULT_IGNORED_FOLDER_NAMES). */
  ignoreNames?: readonly string[];
  /** Absolute folders the watcher never enters (the agents folder), resolved when the source starts. */
  ignorePaths?: () => Promise<readonly string[]>;
  /** Filter reported paths by the workspace's `.gitignore` rules (default true). */
  gitignore?: boolean;
  /** Keep the watcher out of the folders the ignore rules exclude (default true). */
  skipIgnoredFolders?: boolean;
  /**
   * While this returns a promise, the walk for the ignored folders reads no folder (and so the watcher does not
   * start) until it settles: a search walking the tree just after start gets the cores (the search engine's
   * ListGivesWay.turn). `ready` still comes only once the watcher runs.
   */
  giveWay?: () => Promise<void> | undefined;
  /** Quiet time after a `.gitignore` changed before the ignored folders are found again (200 ms). */
  rulesDebounceMs?: number;
  /** Distinct paths waiting for their stat beyond which subscribers are told to resync instead (10 000). */
  maxPending?: number;
  /** How many stats run at once (16). */
  concurrency?: number;
  /** Told when the watcher fails or loses events (the feed resyncs either way). */
  onError?: (error: Error) => void;
}

export function watcherSource(options: WatcherSourceOptions): ChangeSource {
  const maxPending = options.maxPending ?? 10_000;
  const concurrency = options.concurrency ?? 16;
  return {
    async start(sink: ChangeSink) {
      const root = await options.root();
      const rules = options.gitignore === false ? undefined : createIgnoreRules(options.fs, root, { longLived: true });
      const pending = new Set<string>();
      let draining: Promise<void> | undefined;
      let stopped = false;
      const ignoreNames = options.ignoreNames ?? DEFAULT_IGNORED_FOLDER_NAMES;
      const ignorePaths = (await options.ignorePaths?.()) ?? [];
      const folders =
        options.skipIgnoredFolders === false
          ? undefined
          : new IgnoredFolderWatch(options.fs, root, {
              ignoreNames,
              ignorePaths,
              debounceMs: options.rulesDebounceMs ?? 200,
              giveWay: options.giveWay,
            });
      await folders?.find();

      const drain = async () => {
        while (pending.size > 0 && !stopped) {
          const batch = [...pending];
          pending.clear();
          for (let i = 0; i < batch.length && !stopped; i += concurrency) {
            const states = await Promise.all(batch.slice(i, i + concurrency).map((path) => stateOf(options.fs, rules, root, path)));
            if (stopped) return;
            for (const state of states) if (state) sink.publish(state);
          }
        }
      };

      const onEvents = (events: WatcherEvent[]) => {
        if (stopped) return;
        for (const event of events) {
          if (!isInside(root, event.path)) continue;
          // Our own temp files and staging folders: the write reports its target when it lands.
          if (isWriteInFlight(relativeTo(root, event.path))) continue;
          pending.add(event.path);
          forgetStaleRules(rules, root, event.path); // before any stat that the changed rules decide
          folders?.notice(event.path);
        }
        if (pending.size > maxPending) {
          pending.clear();
          sink.resync();
          return;
        }
        draining ??= drain().finally(() => {
          draining = undefined;
          if (pending.size > 0 && !stopped) onEvents([]); // arrived while the last round was publishing
        });
      };

      const handle = await options.watcher.watch(
        root,
        {
          onEvents,
          onError(error) {
            if (stopped) return;
            sink.resync();
            options.onError?.(error);
          },
        },
        { ignoreNames, ignorePaths: [...ignorePaths, ...(folders?.current ?? [])] },
      );
      folders?.attach(handle, () => sink.resync(), (error) => options.onError?.(error));
      return async () => {
        stopped = true;
        await folders?.stop();
        await handle.close();
        await draining;
      };
    },
  };
}

/** A changed `.gitignore` (or virtualenv marker) makes the rules cached for its folder stale. */
function forgetStaleRules(rules: IgnoreRules | undefined, root: string, path: string): void {
  if (!rules || path === root) return;
  const folder = staleRulesFolder(relativeTo(root, path));
  if (folder !== undefined) rules.forget(folder);
}

/** What is at `path` now, or undefined when it is ignored or cannot be told. */
async function stateOf(fs: FileSystem, rules: IgnoreRules | undefined, root: string, path: string): Promise<Change | undefined> {
  let change: Change;
  let isDir = false;
  try {
    // The entry itself: a link that changed is the link, and its target (if inside) reports its own changes.
    const stat = await fs.lstat(path);
    change = { absolutePath: path, version: stat.version };
    isDir = stat.type === 'dir';
  } catch (error) {
    if (!isFsError(error, 'not-found') && !isFsError(error, 'not-directory')) return undefined;
    change = { absolutePath: path, absent: true };
  }
  if (rules && path !== root) {
    try {
      if (await rules.isIgnored(relativeTo(root, path), isDir)) return undefined;
    } catch {
      // rules that cannot be read hide nothing
    }
  }
  return change;
}

/**
 * The folders the ignore rules exclude, kept for the watcher's ignore list: found at start, found again below
 * the folder of a changed `.gitignore` (after a quiet moment), and handed to the watcher when they changed.
 */
class IgnoredFolderWatch {
  /** Absolute ignored folders, as the watcher was last told. */
  current: string[] = [];
  private rules: IgnoreRules;
  private handle: WatchHandle | undefined;
  private resync: () => void = () => {};
  private report: (error: Error) => void = () => {};
  /** Root-relative folders whose `.gitignore` changed since the last round. */
  private readonly stale = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly fs: FileSystem,
    private readonly root: string,
    private readonly options: {
      ignoreNames: readonly string[];
      ignorePaths: readonly string[];
      debounceMs: number;
      giveWay: (() => Promise<void> | undefined) | undefined;
    },
  ) {
    this.rules = createIgnoreRules(fs, root, { longLived: true });
  }

  /** The first walk (before the watcher starts, so it never enters them). */
  async find(): Promise<void> {
    this.current = await this.walk('');
  }

  attach(handle: WatchHandle, resync: () => void, report: (error: Error) => void): void {
    this.handle = handle;
    this.resync = resync;
    this.report = report;
  }

  /** A path the watcher reported: a changed `.gitignore` schedules a new round for its folder. */
  notice(path: string): void {
    if (this.stopped || path === this.root || !this.handle?.update) return;
    const folder = staleRulesFolder(relativeTo(this.root, path));
    if (folder === undefined) return;
    this.rules.forget(folder);
    this.stale.add(folder);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.running.then(() => this.round()).catch((error: unknown) => this.report(error as Error));
    }, this.options.debounceMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private walk(under: string): Promise<string[]> {
    return findIgnoredFolders(this.fs, this.root, this.rules, {
      under,
      skipNames: new Set(this.options.ignoreNames),
      skipPaths: this.options.ignorePaths,
      giveWay: this.options.giveWay,
    }).then((found) => found.folders);
  }

  private async round(): Promise<void> {
    if (this.stopped) return;
    const under = [...this.stale];
    this.stale.clear();
    // A folder's rules rule over what is below it alone: only there can the list change.
    const found = new Set(this.current.filter((path) => !under.some((rel) => isInside(this.absolute(rel), path))));
    for (const rel of under) for (const path of await this.walk(rel)) found.add(path);
    const next = [...found].slice(0, DEFAULT_MAX_IGNORED_FOLDERS);
    // Only a folder no longer ignored needs the watcher rebuilt (it was never watched, and changes during the
    // rebuild are missed, hence the resync, which also covers what it holds now, news nobody was told). A
    // folder newly ignored stays watched until then: the streams filter it.
    if (this.stopped || !this.current.some((path) => !found.has(path))) return;
    await this.handle!.update!({ ignoreNames: this.options.ignoreNames, ignorePaths: [...this.options.ignorePaths, ...next] });
    this.current = next;
    if (!this.stopped) this.resync();
  }

  private absolute(rel: string): string {
    return rel === '' ? this.root : join(this.root, rel);
  }
}
