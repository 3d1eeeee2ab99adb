/**
 * Git state as a change-feed source: a commit, checkout, merge, stash or fetch made anywhere (a terminal, an
 * editor, an agent) reaches the feed as ONE change of the repo's git entry, `{absolutePath: '<repo>/.git',
 * version: 'git-<hash>'}`, so branch and status consumers refresh without polling. The file watcher
 * (watcher-source.ts) never enters `.git`, and nothing inside `.git` is published here either.
 *
 * Which repos: the root itself when it has a git dir, plus every repo core/git/discover-repos.ts finds (the same
 * rules as `GET /workspace/repos`), at most `maxRepos` of them. Each gets a RepoGitWatch on its git dir (and a
 * linked worktree's common dir). Discovery runs again
 * - ~300 ms after the feed shows a new folder at depth ≤ 4 outside known repos (`git init x`, a clone's folder
 *   arriving), or a known repo's folder gone (`notice`, fed every change the feed gets);
 * - when a watched git dir loses its HEAD;
 * - on `refresh()`, which handlers call after creating a repo through the API (git_init, clone).
 * Repos no longer found stop being watched. Not seen without a refresh: `git init` inside an existing folder
 * (the file watcher does not report `.git`, so nothing at all is reported).
 *
 * Edge-clean: a FileSystem and a WatcherAdapter, no git process.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isInside, join, relativeTo } from '../../adapters/fs/posix-path.ts';
import type { WatcherAdapter } from '../../adapters/watcher/watcher-adapter.ts';
import { discoverRepos, isRepoFolderName, MAX_SEGMENTS } from '../git/discover-repos.ts';
import { resolveGitDirs, type GitDirs } from '../git/git-dir.ts';
import type { Change, ChangeSink, ChangeSource } from './change-feed.ts';
import { RepoGitWatch } from './repo-git-watch.ts';

/**
 * Repos watched at most. Each costs a few inotify watches (its git dir's folders) and a timer; past this many a
 * workspace is a mirror of many projects, not one being worked on, and the rest go unwatched (the repo list in
 * discovery order: the root first, then by id) — consumers of those fall back to refreshing on their own.
 */
export const DEFAULT_MAX_REPOS = 200;

export interface GitStateSourceOptions {
  watcher: WatcherAdapter;
  /** What git dirs are read through (reads only). */
  fs: FileSystem;
  /** The workspace root as a real path (resolved when the source starts). */
  root: () => Promise<string>;
  /** Absolute folders discovery never enters (the agents folder), resolved at each discovery. */
  exclude?: () => Promise<readonly string[]>;
  /** Default DEFAULT_MAX_REPOS. */
  maxRepos?: number;
  /** Quiet time in a git dir before its state is read (50 ms), and the longest a stream of events defers it (1 s). */
  debounceMs?: number;
  maxDelayMs?: number;
  /** Quiet time after a new folder before discovery runs again (300 ms: a clone's `.git` lands just after its folder). */
  discoveryDebounceMs?: number;
  /** Told when a watch fails or discovery breaks (the source carries on). */
  onError?: (error: Error) => void;
}

export interface GitStateSource extends ChangeSource {
  /** Re-runs discovery now; resolves once it has run (new repos watched, vanished ones not). */
  refresh(): Promise<void>;
  /** Every change the feed gets (API writes and the file watcher's): new folders may be new repos. */
  notice(change: Change): void;
}

export function gitStateSource(options: GitStateSourceOptions): GitStateSource {
  const maxRepos = options.maxRepos ?? DEFAULT_MAX_REPOS;
  const debounceMs = options.debounceMs ?? 50;
  const maxDelayMs = options.maxDelayMs ?? 1000;
  const discoveryDebounceMs = options.discoveryDebounceMs ?? 300;
  const report = (error: unknown) => options.onError?.(error instanceof Error ? error : new Error(String(error)));

  let root: string | undefined;
  let sink: ChangeSink | undefined;
  let stopped = false;
  const watches = new Map<string, RepoGitWatch>();
  /** The last discovery run (or the first), which the next one queues behind. */
  let tail: Promise<void> = Promise.resolve();
  let queued: Promise<void> | undefined;
  let discoveryTimer: ReturnType<typeof setTimeout> | undefined;

  async function discover(initial: boolean): Promise<void> {
    if (stopped || root === undefined) return;
    const exclude = (await options.exclude?.()) ?? [];
    const ids = await discoverRepos(options.fs, root, { exclude });
    const wanted = new Map<string, GitDirs>();
    for (const repo of [root, ...ids.map((id) => join(root!, id))]) {
      if (wanted.size >= maxRepos) break;
      const dirs = await resolveGitDirs(options.fs, repo, root);
      if (dirs) wanted.set(repo, dirs);
    }
    for (const [repo, watch] of watches) {
      const dirs = wanted.get(repo);
      if (dirs && dirs.gitDir === watch.dirs.gitDir && dirs.commonDir === watch.dirs.commonDir) continue;
      watches.delete(repo);
      await watch.close();
    }
    for (const [repo, dirs] of wanted) {
      if (stopped) return;
      if (watches.has(repo)) continue;
      const watch = new RepoGitWatch({
        fs: options.fs,
        watcher: options.watcher,
        repo,
        dirs,
        publish: (change) => sink?.publish(change),
        gone: () => scheduleDiscovery(),
        debounceMs,
        maxDelayMs,
        onError: report,
      });
      watches.set(repo, watch);
      try {
        await watch.start(!initial);
      } catch (error) {
        watches.delete(repo); // its git dir went away meanwhile: the next discovery decides again
        await watch.close();
        report(error);
      }
    }
  }

  /** Discovery after the one running (if any); requests while one waits join it. */
  function requestDiscovery(): Promise<void> {
    queued ??= tail.then(async () => {
      queued = undefined;
      await discover(false).catch(report);
    });
    tail = queued;
    return queued;
  }

  function scheduleDiscovery(): void {
    if (stopped) return;
    clearTimeout(discoveryTimer);
    discoveryTimer = setTimeout(() => void requestDiscovery(), discoveryDebounceMs);
  }

  /** The watched repo (not the root) that `path` is in or at, if any. */
  function watchedRepoHolding(path: string): boolean {
    for (const repo of watches.keys()) if (repo !== root && isInside(repo, path)) return true;
    return false;
  }

  return {
    async start(feedSink: ChangeSink) {
      root = await options.root();
      sink = feedSink;
      tail = discover(true).catch(report);
      await tail; // `ready` for subscribers means the repos there are now are watched
      return async () => {
        stopped = true;
        clearTimeout(discoveryTimer);
        await tail;
        await Promise.all([...watches.values()].map((watch) => watch.close()));
        watches.clear();
      };
    },

    refresh() {
      if (stopped || root === undefined) return Promise.resolve();
      clearTimeout(discoveryTimer);
      return requestDiscovery();
    },

    notice(change: Change) {
      if (stopped || root === undefined) return;
      const path = change.absolutePath;
      if (path === root || !isInside(root, path)) return;
      const segments = relativeTo(root, path).split('/');
      if (segments.length > MAX_SEGMENTS) return;
      if ('absent' in change) {
        // A known repo's folder (or one above it) removed or moved away.
        for (const repo of watches.keys()) {
          if (repo !== root && isInside(path, repo)) return scheduleDiscovery();
        }
        return;
      }
      // Only folders discovery could list; and what is inside a known repo is never another repo id.
      if (!segments.every(isRepoFolderName) || watchedRepoHolding(path)) return;
      // A change naming a folder is its creation, a move into place or a mode change (entries added inside
      // report themselves, not their folder), so this stat is rare.
      options.fs.lstat(path).then(
        (stat) => {
          if (stat.type === 'dir') scheduleDiscovery();
        },
        () => {}, // gone again: nothing to find
      );
    },
  };
}
