/**
 * One repo's git dir under the OS watcher (for core/changes/git-state-source.ts): after each quiet moment in the
 * git dir's events it recomputes the repo's git-state fingerprint (core/git/git-state-fingerprint.ts) and, when
 * it moved, publishes ONE change for the repo's git entry, `<repo>/.git` with the fingerprint as its version.
 * Nothing inside `.git` is ever published: consumers read "`<repo>/.git` changed" as "refresh status and
 * branches".
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isInside, join } from '../../adapters/fs/posix-path.ts';
import type { WatchHandle, WatcherAdapter, WatcherEvent } from '../../adapters/watcher/watcher-adapter.ts';
import type { GitDirs } from '../git/git-dir.ts';
import { GitStateFingerprint } from '../git/git-state-fingerprint.ts';
import type { Change } from './change-feed.ts';

/**
 * Git-dir folders never watched: object and reflog writes (every commit and fetch, thousands of files), hooks,
 * LFS and submodule stores, and other worktrees' git dirs (agents' worktrees churn their own index; a linked
 * worktree inside the workspace is a repo of its own with its own watch).
 */
export const UNWATCHED_GIT_FOLDERS: readonly string[] = ['objects', 'logs', 'hooks', 'lfs', 'modules', 'worktrees'];

export interface RepoGitWatchOptions {
  fs: FileSystem;
  watcher: WatcherAdapter;
  /** The repo's folder (absolute real path): the change is published for `<repo>/.git`. */
  repo: string;
  dirs: GitDirs;
  publish(change: Change): void;
  /** The git dir lost its HEAD (the repo was deleted or moved): the owner re-runs discovery. */
  gone(): void;
  /**
   * Quiet time before the state is read (git writes `index.lock`, then renames it; a commit writes the index,
   * then the ref), and the longest a steady stream of events (a rebase) may hold it back.
   */
  debounceMs: number;
  maxDelayMs: number;
  onError(error: Error): void;
}

export class RepoGitWatch {
  /** Where the change is published. */
  readonly entry: string;
  private readonly fingerprint: GitStateFingerprint;
  private readonly handles: WatchHandle[] = [];
  /** Ref files named by events since the last update. */
  private readonly namedRefs = new Set<string>();
  /** The watcher may have missed events: every ref named so far is re-read at the next update. */
  private rereadRefs = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private firstPendingAt: number | undefined;
  private updating: Promise<void> | undefined;
  private updateAgain = false;
  private last: string | undefined;
  private closed = false;

  constructor(private readonly options: RepoGitWatchOptions) {
    this.entry = join(options.repo, '.git');
    this.fingerprint = new GitStateFingerprint(options.fs, options.dirs);
  }

  get dirs(): GitDirs {
    return this.options.dirs;
  }

  /**
   * Puts the watches in place, then takes the state as it is (so a change from here on is seen). `announce`
   * publishes that first state too: a repo that appeared while the daemon ran is news to consumers.
   */
  async start(announce: boolean): Promise<void> {
    const { gitDir, commonDir } = this.options.dirs;
    for (const dir of gitDir === commonDir ? [gitDir] : [gitDir, commonDir]) {
      const ignorePaths = UNWATCHED_GIT_FOLDERS.map((name) => join(dir, name));
      const handle = await this.options.watcher.watch(
        dir,
        {
          onEvents: (events) => this.onEvents(events, ignorePaths),
          onError: (error) => {
            if (this.closed) return;
            this.rereadRefs = true;
            this.options.onError(error);
            this.schedule();
          },
        },
        { ignoreNames: [], ignorePaths },
      );
      if (this.closed) await handle.close();
      else this.handles.push(handle);
    }
    const version = await this.fingerprint.compute();
    if (this.closed) return;
    if (this.last === undefined) this.last = version; // an event during the first read may have set it already
    if (announce && version !== undefined) this.options.publish({ absolutePath: this.entry, version });
  }

  /** Removes the watches; nothing is published once this resolves. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await Promise.all(this.handles.splice(0).map((handle) => handle.close()));
    await this.updating;
  }

  private onEvents(events: WatcherEvent[], ignorePaths: readonly string[]): void {
    if (this.closed) return;
    let relevant = false;
    for (const { path } of events) {
      // A lock file is git's scratch copy: what counts is the rename that replaces the real file.
      if (path.endsWith('.lock') || ignorePaths.some((ignored) => isInside(ignored, path))) continue;
      relevant = true;
      if (this.fingerprint.isRefPath(path)) this.namedRefs.add(path);
    }
    if (relevant) this.schedule();
  }

  private schedule(): void {
    const now = Date.now();
    this.firstPendingAt ??= now;
    clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(this.options.debounceMs, this.firstPendingAt + this.options.maxDelayMs - now));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.firstPendingAt = undefined;
      this.update();
    }, wait);
  }

  /** One update at a time; events during one make another follow it. */
  private update(): void {
    if (this.updating) {
      this.updateAgain = true;
      return;
    }
    this.updating = (async () => {
      do {
        this.updateAgain = false;
        await this.publishState();
      } while (this.updateAgain && !this.closed);
    })()
      .catch((error: unknown) => this.options.onError(error instanceof Error ? error : new Error(String(error))))
      .finally(() => (this.updating = undefined));
  }

  private async publishState(): Promise<void> {
    const named = [...this.namedRefs];
    this.namedRefs.clear();
    if (this.rereadRefs) {
      this.rereadRefs = false;
      await this.fingerprint.rereadRefs();
    }
    await this.fingerprint.noteRefs(named);
    const version = await this.fingerprint.compute();
    if (this.closed) return;
    if (version === undefined) {
      this.options.gone();
      return;
    }
    if (version === this.last) return;
    this.last = version;
    this.options.publish({ absolutePath: this.entry, version });
  }
}
