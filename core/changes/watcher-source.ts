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
 * Ignored paths: the watcher does not enter the ignored folder names and paths; the `.gitignore` rules
 * (core/ignore), when given, filter what it reports, and a changed `.gitignore` refreshes them. The stat goes
 * through the FileSystem, so the version is the same one the API's own reads and writes report, and the
 * feed's duplicate suppression drops the watcher's echo of an API write.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { isInside, relativeTo } from '../../adapters/fs/posix-path.ts';
import type { WatcherAdapter, WatcherEvent } from '../../adapters/watcher/watcher-adapter.ts';
import { createIgnoreRules, staleRulesFolder, type IgnoreRules } from '../ignore/ignore-rules.ts';
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
      const rules = options.gitignore === false ? undefined : createIgnoreRules(options.fs, root);
      const pending = new Set<string>();
      let draining: Promise<void> | undefined;
      let stopped = false;

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
          pending.add(event.path);
          forgetStaleRules(rules, root, event.path); // before any stat that the changed rules decide
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
        {
          ignoreNames: options.ignoreNames ?? DEFAULT_IGNORED_FOLDER_NAMES,
          ignorePaths: (await options.ignorePaths?.()) ?? [],
        },
      );
      return async () => {
        stopped = true;
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
