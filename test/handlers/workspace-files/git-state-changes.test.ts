/**
 * Git state in `GET /workspace-files/changes`, end to end: a real Node server with the OS watcher, its SSE
 * stream, and git run directly as a terminal would. Each commit, `checkout -b`, merge and stash shows up as a
 * `<repo>/.git` change with a new version; no frame ever names a path inside `.git/`; the daemon's own
 * get_git_status (over /ws) causes none; a repo cloned or initialised from a terminal is found and followed.
 */
import { execFileSync } from 'node:child_process';
import { utimesSync, writeFileSync } from 'node:fs';
import { fetch } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FeedFrame } from '../../../core/changes/change-feed.ts';
import type { NodeServer } from '../../../runtime/node/server.ts';
import { GIT_IDENTITY_ENV, startGitTestServer } from '../../support/git-test-server.ts';
import { RpcClient } from '../../support/rpc-client.ts';
import { SseFrames } from '../../support/sse-frames.ts';
import { tempWorkspace, TEST_TOKEN } from '../../support/workspace.ts';

const TIMEOUT_MS = 10_000;
/** Well past the git-state debounce (50 ms) and the watcher's latency: a change that is coming has come. */
const QUIET_MS = 400;
const env = { ...process.env, ...GIT_IDENTITY_ENV };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }).toString();

/** The SSE stream's frames (the shared reader), with the git-state waits of these tests. */
class Frames extends SseFrames {
  /** Waits for a `<repo>/.git` change whose version is not `previous`; returns that version. */
  async gitChange(repo: string, previous: string | undefined, what: string): Promise<string> {
    const frame = await this.until(
      (f) => f.kind === 'change' && f.change.absolutePath === `${repo}/.git` && 'version' in f.change && f.change.version !== previous,
      [],
      what,
    );
    return (frame as { change: { version: string } }).change.version;
  }

  /**
   * `gitChange`, then every frame until the stream is quiet: the version returned is the repo's state once the
   * operation is over, so the next operation's change cannot be one this one left trailing.
   */
  async settledGitChange(repo: string, previous: string | undefined, what: string): Promise<string> {
    let version = await this.gitChange(repo, previous, what);
    for (let frame = await this.next(QUIET_MS); frame; frame = await this.next(QUIET_MS)) {
      if (frame.kind === 'change' && frame.change.absolutePath === `${repo}/.git` && 'version' in frame.change) version = frame.change.version;
    }
    return version;
  }

  /** Nothing at all arrives for QUIET_MS. */
  async expectSilence(): Promise<void> {
    expect(await this.next(QUIET_MS)).toBeUndefined();
  }
}

describe('git state in /workspace-files/changes (real server, OS watcher, terminal git)', () => {
  let root: string;
  let app: string;
  let cleanup: () => Promise<void>;
  let server: NodeServer;
  let abort: AbortController;
  let frames: Frames;

  beforeEach(async () => {
    ({ root, cleanup } = await tempWorkspace({ 'app/a.txt': 'a\n', 'app/b.txt': 'b\n' }));
    app = `${root}/app`;
    git(app, 'init', '-q', '-b', 'main');
    git(app, 'add', '-A');
    git(app, 'commit', '-q', '-m', 'first');
    server = await startGitTestServer(root, {}, { watch: true });
    abort = new AbortController();
    const response = await fetch(`${server.url}/workspace-files/changes`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    frames = new Frames(response.body as ReadableStream<Uint8Array>, TIMEOUT_MS);
    expect(await frames.next()).toEqual({ kind: 'ready' }); // the repos' git dirs are watched from here on
  });
  afterEach(async () => {
    abort.abort();
    await server.close();
    await cleanup();
    // Whatever a test saw, nothing inside a `.git` folder was ever a frame.
    const paths = frames.seen.flatMap((frame) => (frame.kind === 'change' ? [frame.change.absolutePath] : []));
    expect(paths.filter((path) => path.includes('/.git/'))).toEqual([]);
  });

  it('a commit, checkout -b, merge and stash from a terminal each give <repo>/.git a new version', async () => {
    writeFileSync(`${app}/a.txt`, 'a2\n');
    git(app, 'commit', '-q', '-am', 'second');
    const commit = await frames.settledGitChange(app, undefined, 'the commit');
    expect(commit).toMatch(/^git-[0-9a-f]{16}$/);

    git(app, 'checkout', '-q', '-b', 'feature');
    const checkout = await frames.settledGitChange(app, commit, 'checkout -b');

    writeFileSync(`${app}/c.txt`, 'c\n');
    git(app, 'add', 'c.txt');
    git(app, 'commit', '-q', '-m', 'feature work');
    const featureCommit = await frames.settledGitChange(app, checkout, 'the commit on feature');
    git(app, 'checkout', '-q', 'main');
    const backOnMain = await frames.settledGitChange(app, featureCommit, 'checkout main');
    git(app, 'merge', '-q', '--no-edit', 'feature');
    const merge = await frames.settledGitChange(app, backOnMain, 'the merge');

    writeFileSync(`${app}/b.txt`, 'dirty\n');
    git(app, 'stash', 'push', '-q', '-m', 'wip');
    const stash = await frames.settledGitChange(app, merge, 'the stash');
    expect(new Set([commit, checkout, featureCommit, backOnMain, merge, stash]).size).toBe(6);
    // The file changes of the stash reach the stream as files, next to the git entry.
    expect(frames.seen).toContainEqual({ kind: 'change', change: { absolutePath: `${app}/b.txt`, version: expect.any(String) } });
  });

  it("the daemon's get_git_status causes no git-state change; a terminal's plain git status that rewrites the index does", async () => {
    const later = new Date(Date.now() + 5000);
    utimesSync(`${app}/a.txt`, later, later); // same content, stale stat: a status with locks would rewrite the index
    await frames.until((f) => f.kind === 'change' && f.change.absolutePath === `${app}/a.txt`, [], 'the touch');
    const rpc = await RpcClient.connect(server);
    try {
      expect(await rpc.ok('get_git_status', { path: 'app' })).toEqual({
        branch: 'main', ahead: 0, behind: 0, modified: [], staged: [], untracked: [], deleted: [], unmerged: [],
        stagedDetails: {}, worktreeDetails: {}, worktreeStats: {}, stagedStats: {},
      });
      await frames.expectSilence();
    } finally {
      await rpc.close();
    }
    git(app, 'status', '--porcelain');
    expect(await frames.next()).toEqual({ kind: 'change', change: { absolutePath: `${app}/.git`, version: expect.stringMatching(/^git-/) } });
  });

  it('a repo cloned or initialised from a terminal is found, and a commit in it is seen', async () => {
    git(root, 'clone', '-q', app, 'team/copy');
    const cloned = await frames.gitChange(`${root}/team/copy`, undefined, 'the clone found');
    writeFileSync(`${root}/team/copy/a.txt`, 'in the copy\n');
    git(`${root}/team/copy`, 'commit', '-q', '-am', 'copy');
    await frames.gitChange(`${root}/team/copy`, cloned, 'a commit in the clone');

    git(root, 'init', '-q', '-b', 'main', 'fresh');
    const found = await frames.gitChange(`${root}/fresh`, undefined, 'the new repo found');
    writeFileSync(`${root}/fresh/n.txt`, 'n\n');
    git(`${root}/fresh`, 'add', 'n.txt');
    git(`${root}/fresh`, 'commit', '-q', '-m', 'first in fresh');
    await frames.gitChange(`${root}/fresh`, found, 'the first commit in the new repo');
  });

  it('git_init over /ws in a folder that exists (no new folder to notice): its commits are seen from the answer on', async () => {
    writeFileSync(`${root}/notes.txt`, 'n\n');
    await frames.until((f) => f.kind === 'change' && f.change.absolutePath === `${root}/notes.txt`, [], 'the write');
    const rpc = await RpcClient.connect(server);
    try {
      expect(await rpc.ok('git_init', { path: '.' })).toBe(`Initialized empty Git repository in ${root}/.git/`);
    } finally {
      await rpc.close();
    }
    const initialised = await frames.gitChange(root, undefined, 'the repo made by git_init');
    git(root, 'add', 'notes.txt');
    git(root, 'commit', '-q', '-m', 'first at the root');
    await frames.gitChange(root, initialised, 'a commit in the repo made by git_init');
  });
});
