/**
 * The git-state source over real repos (git run as a terminal would), the real OS watcher and the local disk:
 * what each git operation publishes, what it must not (our own `--no-optional-locks` status), linked worktrees,
 * `.git` files, discovery on refresh, and that every git-dir watch is closed when the source stops.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { ParcelWatcherAdapter } from '../../../adapters/watcher/parcel-watcher-adapter.ts';
import type { WatchHandle, WatcherAdapter, WatchListener, WatchOptions } from '../../../adapters/watcher/watcher-adapter.ts';
import type { Change, ChangeSink, StopSource } from '../../../core/changes/change-feed.ts';
import { gitStateSource, type GitStateSource } from '../../../core/changes/git-state-source.ts';
import { resolveGitDirs } from '../../../core/git/git-dir.ts';
import { GIT_IDENTITY_ENV } from '../../support/git-test-server.ts';
import { waitFor } from '../../support/processes.ts';

const TIMEOUT_MS = 10_000;
/** Well past the source's 50 ms debounce plus the watcher's latency: a change that is coming has come. */
const QUIET_MS = 400;
const env = { ...process.env, ...GIT_IDENTITY_ENV };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }).toString().trim();

/** The real watcher, counting the watches open and what they were asked to watch. */
class CountingWatcher implements WatcherAdapter {
  readonly inner = new ParcelWatcherAdapter();
  readonly open = new Map<WatchHandle, { root: string; options: WatchOptions }>();
  async watch(root: string, listener: WatchListener, options: WatchOptions): Promise<WatchHandle> {
    const inner = await this.inner.watch(root, listener, options);
    const handle: WatchHandle = {
      close: async () => {
        this.open.delete(handle);
        await inner.close();
      },
    };
    this.open.set(handle, { root, options });
    return handle;
  }
  roots(): string[] {
    return [...this.open.values()].map((watch) => watch.root).sort();
  }
}

class RecordingSink implements ChangeSink {
  readonly changes: Change[] = [];
  publish(change: Change) {
    this.changes.push(change);
  }
  resync() {
    throw new Error('the git-state source never asks for a resync');
  }
  /** Waits until `count` changes in all have been published; returns those after `from`. */
  async until(count: number, from = 0): Promise<Change[]> {
    await waitFor(() => this.changes.length >= count, { timeoutMs: TIMEOUT_MS, what: `${count} changes` });
    return this.changes.slice(from);
  }
}

const quiet = () => new Promise((resolve) => setTimeout(resolve, QUIET_MS));
const versionOf = (change: Change | undefined) => (change && 'version' in change ? change.version : undefined);

describe('gitStateSource (real git, real watcher)', () => {
  let root: string;
  let watcher: CountingWatcher;
  let sink: RecordingSink;
  let source: GitStateSource;
  let stop: StopSource | undefined;

  function repo(rel: string, files: Record<string, string> = { 'a.txt': 'a\n' }): string {
    const dir = rel === '' ? root : `${root}/${rel}`;
    mkdirSync(dir, { recursive: true });
    git(dir, 'init', '-q', '-b', 'main');
    for (const [name, content] of Object.entries(files)) writeFileSync(`${dir}/${name}`, content);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'first');
    return dir;
  }

  async function startSource(): Promise<void> {
    source = gitStateSource({ watcher, fs: new NodeFileSystem(), root: async () => root });
    stop = await source.start(sink);
  }

  beforeEach(() => {
    root = realpathSync(mkdtempSync(`${tmpdir()}/git-state-`));
    watcher = new CountingWatcher();
    sink = new RecordingSink();
  });
  afterEach(async () => {
    await stop?.();
    stop = undefined;
    rmSync(root, { recursive: true, force: true });
  });

  it('publishes one <repo>/.git change per commit, checkout, merge and stash, each with a new version', async () => {
    const app = repo('app');
    await startSource();
    expect(watcher.roots()).toEqual([`${app}/.git`]);
    expect(sink.changes).toEqual([]); // the state at start is no news

    writeFileSync(`${app}/a.txt`, 'a2\n');
    git(app, 'commit', '-q', '-am', 'second');
    const [commit] = await sink.until(1);
    expect(commit).toEqual({ absolutePath: `${app}/.git`, version: expect.stringMatching(/^git-[0-9a-f]{16}$/) });

    git(app, 'checkout', '-q', '-b', 'feature');
    await waitFor(() => versionOf(sink.changes.at(-1)) !== versionOf(commit), { timeoutMs: TIMEOUT_MS, what: 'the checkout' });
    const checkout = sink.changes.at(-1);

    writeFileSync(`${app}/b.txt`, 'b\n');
    git(app, 'add', 'b.txt');
    git(app, 'commit', '-q', '-m', 'on feature');
    git(app, 'checkout', '-q', 'main');
    await quiet();
    const beforeMerge = sink.changes.length;
    git(app, 'merge', '-q', '--no-edit', 'feature');
    await sink.until(beforeMerge + 1);

    const beforeStash = sink.changes.length;
    writeFileSync(`${app}/a.txt`, 'dirty\n');
    git(app, 'stash', 'push', '-q', '-m', 'wip');
    await sink.until(beforeStash + 1);
    await quiet();
    const beforePop = sink.changes.length;
    git(app, 'stash', 'pop', '-q');
    await sink.until(beforePop + 1);

    // Only the repo's git entry, never a path inside `.git`; and no two neighbours alike (a repeat is never sent).
    expect(new Set(sink.changes.map((change) => change.absolutePath))).toEqual(new Set([`${app}/.git`]));
    const versions = sink.changes.map(versionOf);
    expect(versions.every((version, i) => i === 0 || version !== versions[i - 1])).toBe(true);
    expect(versions).toContain(versionOf(checkout));
  });

  it('our own `git --no-optional-locks status` changes nothing; a plain status that rewrites the index does', async () => {
    const app = repo('app');
    await startSource();
    const later = new Date(Date.now() + 5000);
    utimesSync(`${app}/a.txt`, later, later); // the index's cached stat is now stale: a status would refresh it
    git(app, '--no-optional-locks', 'status', '--porcelain');
    git(app, '--no-optional-locks', 'status', '-b', '--porcelain', '-z');
    await quiet();
    expect(sink.changes).toEqual([]);
    git(app, 'status', '--porcelain'); // takes index.lock and writes the refreshed index
    expect(await sink.until(1)).toEqual([{ absolutePath: `${app}/.git`, version: expect.stringMatching(/^git-/) }]);
  });

  it('watches the root repo and nested ones apart: a commit in one reports only that one', async () => {
    repo('', { 'top.txt': 't\n', '.gitignore': 'libs/\n' });
    const lib = repo('libs/core');
    await startSource();
    expect(watcher.roots()).toEqual([`${root}/.git`, `${lib}/.git`]);
    writeFileSync(`${lib}/a.txt`, 'changed\n');
    git(lib, 'commit', '-q', '-am', 'lib change');
    expect(await sink.until(1)).toEqual([{ absolutePath: `${lib}/.git`, version: expect.stringMatching(/^git-/) }]);
    await quiet();
    expect(sink.changes.map((change) => change.absolutePath)).toEqual([`${lib}/.git`]);
    git(root, 'branch', 'topic');
    const [branch] = await sink.until(2, 1);
    expect(branch).toEqual({ absolutePath: `${root}/.git`, version: expect.stringMatching(/^git-/) });
  });

  it('a linked worktree (a .git file) is watched through its git dir and common dir; a commit there reports it', async () => {
    const main = repo('main');
    git(main, 'worktree', 'add', '-q', '-b', 'side', `${root}/side`);
    await startSource();
    expect(await resolveGitDirs(new NodeFileSystem(), `${root}/side`)).toEqual({
      gitDir: `${main}/.git/worktrees/side`,
      commonDir: `${main}/.git`,
    });
    expect(watcher.roots()).toEqual([`${main}/.git`, `${main}/.git`, `${main}/.git/worktrees/side`]);
    writeFileSync(`${root}/side/a.txt`, 'side\n');
    git(`${root}/side`, 'commit', '-q', '-am', 'on side');
    // The worktree's HEAD moved; for main the branch list changed (refs/heads/side).
    await waitFor(() => new Set(sink.changes.map((change) => change.absolutePath)).size === 2, { timeoutMs: TIMEOUT_MS, what: 'both repos' });
    expect(new Set(sink.changes.map((change) => change.absolutePath))).toEqual(new Set([`${main}/.git`, `${root}/side/.git`]));
  });

  it('a packed branch moved, a fetch and a branch deleted are all seen (packed-refs and loose refs)', async () => {
    const origin = repo('origin');
    git(root, 'clone', '-q', origin, 'clone');
    const clone = `${root}/clone`;
    git(clone, 'pack-refs', '--all');
    await startSource();
    writeFileSync(`${origin}/a.txt`, 'upstream\n');
    git(origin, 'commit', '-q', '-am', 'upstream');
    await sink.until(1); // origin's own commit
    const beforeFetch = sink.changes.length;
    git(clone, 'fetch', '-q');
    // The clone's change, whatever else origin's commit still announces meanwhile (its logs can land a beat later).
    await waitFor(() => sink.changes.slice(beforeFetch).some((change) => change.absolutePath === `${clone}/.git`), { timeoutMs: TIMEOUT_MS, what: 'the fetch' });
    await quiet();
    const beforeReset = sink.changes.length;
    git(clone, 'merge', '-q', '--ff-only', 'origin/main'); // main was packed: now a loose ref
    await sink.until(beforeReset + 1);
    git(clone, 'branch', '-q', 'gone');
    await quiet();
    const beforeDelete = sink.changes.length;
    git(clone, 'branch', '-q', '-D', 'gone');
    expect((await sink.until(beforeDelete + 1, beforeDelete))[0]).toEqual({ absolutePath: `${clone}/.git`, version: expect.stringMatching(/^git-/) });
  });

  it('refresh() watches a repo made since, and announces it; a deleted repo stops being watched', async () => {
    const old = repo('old');
    await startSource();
    expect(watcher.roots()).toEqual([`${old}/.git`]);
    const fresh = repo('fresh');
    await source.refresh();
    expect(watcher.roots()).toEqual([`${fresh}/.git`, `${old}/.git`]);
    const [announced] = await sink.until(1);
    expect(announced).toEqual({ absolutePath: `${fresh}/.git`, version: expect.stringMatching(/^git-/) });
    writeFileSync(`${fresh}/a.txt`, 'again\n');
    git(fresh, 'commit', '-q', '-am', 'again');
    const [commit] = await sink.until(2, 1);
    expect(commit).toEqual({ absolutePath: `${fresh}/.git`, version: expect.stringMatching(/^git-/) });
    expect(versionOf(commit)).not.toBe(versionOf(announced));
    rmSync(old, { recursive: true, force: true });
    await source.refresh();
    expect(watcher.roots()).toEqual([`${fresh}/.git`]);
  });

  it('a new folder noticed at depth ≤ 4 makes discovery run again by itself', async () => {
    await startSource();
    expect(watcher.roots()).toEqual([]);
    const made = repo('team/project');
    source.notice({ absolutePath: `${root}/team`, version: 'v' }); // what the feed passes on from the file watcher
    await waitFor(() => watcher.roots().length === 1, { timeoutMs: TIMEOUT_MS, what: 'discovery' });
    expect(watcher.roots()).toEqual([`${made}/.git`]);
    expect(await sink.until(1)).toEqual([{ absolutePath: `${made}/.git`, version: expect.stringMatching(/^git-/) }]);
  });

  it('does not follow a .git file out of the root, nor count an empty .git folder', async () => {
    const outside = realpathSync(mkdtempSync(`${tmpdir()}/git-state-outside-`));
    try {
      repo('real');
      git(outside, 'init', '-q');
      mkdirSync(`${root}/pointer`);
      writeFileSync(`${root}/pointer/.git`, `gitdir: ${outside}/.git\n`);
      mkdirSync(`${root}/empty/.git`, { recursive: true });
      expect(await resolveGitDirs(new NodeFileSystem(), `${root}/pointer`)).toEqual({ gitDir: `${outside}/.git`, commonDir: `${outside}/.git` });
      expect(await resolveGitDirs(new NodeFileSystem(), `${root}/pointer`, root)).toBeUndefined();
      expect(await resolveGitDirs(new NodeFileSystem(), `${root}/empty`, root)).toBeUndefined();
      await startSource();
      expect(watcher.roots()).toEqual([`${root}/real/.git`]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('watches each git dir without its object, log, hook, LFS, module and worktree folders; stop closes every watch', async () => {
    const app = repo('app');
    repo('other');
    await startSource();
    const [watch] = [...watcher.open.values()].filter((entry) => entry.root === `${app}/.git`);
    expect(watch!.options).toEqual({
      ignoreNames: [],
      ignorePaths: ['objects', 'logs', 'hooks', 'lfs', 'modules', 'worktrees'].map((name) => `${app}/.git/${name}`),
    });
    expect(watcher.open.size).toBe(2);
    await stop!();
    stop = undefined;
    expect(watcher.open.size).toBe(0);
    git(app, 'commit', '-q', '--allow-empty', '-m', 'after stop');
    await quiet();
    expect(sink.changes).toEqual([]);
  });
});
