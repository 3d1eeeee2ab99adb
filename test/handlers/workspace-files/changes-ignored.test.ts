/**
 * What tooling ignores stays out of `GET /workspace-files/changes`, end to end: a real Node server with the OS
 * watcher, its SSE stream, real shell writes and real git. Each test writes the ignored paths first and a
 * tracked file right after: the tracked file's frame proves the stream is live, and that nothing came before
 * it proves the ignored writes were dropped, not late (the watcher reports in order).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fetch } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import type { FeedFrame } from '../../../core/changes/change-feed.ts';
import { startNodeServer, type NodeServer } from '../../../runtime/node/server.ts';
import { GIT_IDENTITY_ENV } from '../../support/git-test-server.ts';
import { inotifyWatches } from '../../support/inotify-watches.ts';
import { openChangeStream, type SseFrames } from '../../support/sse-frames.ts';
import { tempWorkspace, TEST_TOKEN } from '../../support/workspace.ts';

const run = promisify(execFile);
const sh = (cwd: string, command: string) => run('sh', ['-c', command], { cwd, env: { ...process.env, ...GIT_IDENTITY_ENV } });
/** Past the watcher's latency and the git-state debounce: a frame that is coming has come. */
const QUIET_MS = 400;

const isChangeOf = (path: string) => (frame: FeedFrame) => frame.kind === 'change' && frame.change.absolutePath === path;
const pathOf = (frame: FeedFrame) => (frame.kind === 'change' ? frame.change.absolutePath : frame.kind);

describe('GET /workspace-files/changes leaves out what tooling ignores (real server, OS watcher)', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  let server: NodeServer;
  let events: SseFrames;
  let abort: AbortController;

  /** Starts the server and reads its stream up to `ready` (the watcher's watches are in place). */
  async function serve(): Promise<void> {
    server = await startNodeServer({ root, auth: { token: TEST_TOKEN }, port: 0 });
    ({ events, abort } = await openChangeStream(server.url, TEST_TOKEN));
  }

  beforeEach(async () => {
    ({ root, cleanup } = await tempWorkspace({
      '.gitignore': 'build/\n',
      'tracked.txt': 'tracked',
      'build/old.js': 'old',
      'pkg/.gitignore': 'out/\n',
      'pkg/src.ts': 'src',
      'pkg/out/gen.js': 'gen',
      'node_modules/x/index.js': 'x',
      '.pnpm-store/v3/files/00/blob': 'blob',
      'logs/app.log': 'log',
    }));
    await sh(root, 'git init -q && git add -A && git commit -q -m initial');
    await serve();
  });
  afterEach(async () => {
    abort.abort();
    await server.close();
    await cleanup();
  });

  const versionOf = async (path: string) => (await new NodeFileSystem().lstat(path)).version;
  /**
   * The tracked file's frame with its final version, and before it none of any other path; then the stream stays
   * quiet. (A shell's `echo t > file` truncates, then writes: the watcher may report the empty file first.)
   */
  async function expectOnly(path: string): Promise<void> {
    const version = await versionOf(path);
    const before: FeedFrame[] = [];
    const final = (f: FeedFrame) => isChangeOf(path)(f) && f.kind === 'change' && 'version' in f.change && f.change.version === version;
    const frame = await events.until(final, before, path);
    expect(before.map(pathOf).filter((other) => other !== path)).toEqual([]);
    expect(frame).toEqual({ kind: 'change', change: { absolutePath: path, version } });
    expect(await events.next(QUIET_MS)).toBeUndefined();
  }

  it('shell writes in node_modules, .git/objects, a package store, a .gitignored folder and a nested one give no frame', async () => {
    await sh(
      root,
      [
        'echo y > node_modules/x/y.js',
        'mkdir -p .git/objects/zz && echo o > .git/objects/zz/obj',
        'echo b > .pnpm-store/v3/files/00/blob2',
        'echo n > build/new.js && mkdir -p build/deep/er && echo d > build/deep/er/d.js',
        'echo g > pkg/out/gen2.js',
        'echo t > tracked.txt',
      ].join(' && '),
    );
    await expectOnly(`${root}/tracked.txt`);
  });

  it('writes through the API there give no frame either (PUT into node_modules, build/, pkg/out/, .git)', async () => {
    for (const path of ['node_modules/x/api.js', 'build/api.js', 'pkg/out/api.js', '.git/info/api', 'tracked.txt']) {
      const put = await fetch(`${server.url}/api/file?path=${encodeURIComponent(path)}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${TEST_TOKEN}` },
        body: JSON.stringify({ content: 'through the API' }),
      });
      expect(put.status).toBe(200);
      await put.arrayBuffer();
    }
    await expectOnly(`${root}/tracked.txt`);
  });

  it('a commit still gives its <repo>/.git frame, and nothing inside .git', async () => {
    await sh(root, 'echo t2 > tracked.txt && git add tracked.txt && git commit -q -m second');
    const frames: FeedFrame[] = [];
    frames.push(await events.until(isChangeOf(`${root}/.git`), frames, 'the commit'));
    for (let frame = await events.next(QUIET_MS); frame; frame = await events.next(QUIET_MS)) frames.push(frame);
    // `add` then `commit` may be one git-state change or two (two when more than the source's 50 ms debounce lies
    // between them, as on a loaded machine): what matters is that .git's internals (index, refs, objects, logs)
    // never show up, only the repo's own entry and the worktree file.
    expect([...new Set(frames.map(pathOf))].sort()).toEqual([`${root}/.git`, `${root}/tracked.txt`]);
  });

  it('a .gitignore edit takes effect: a newly ignored folder goes quiet, a re-included one is watched again', async () => {
    await sh(root, "printf 'logs/\\n' >> .gitignore");
    await events.until(isChangeOf(`${root}/.gitignore`));
    await sh(root, 'echo l > logs/app.log && echo t > tracked.txt');
    await expectOnly(`${root}/tracked.txt`);

    await sh(root, "printf 'logs/\\n' > .gitignore"); // build/ no longer ignored
    await events.until(isChangeOf(`${root}/.gitignore`));
    // build/ was not watched: once it is, what it holds is news, so the stream says resync.
    expect(await events.frame()).toEqual({ kind: 'resync' });
    await sh(root, 'echo n > build/now-tracked.js');
    expect(await events.frame()).toEqual({
      kind: 'change',
      change: { absolutePath: `${root}/build/now-tracked.js`, version: await versionOf(`${root}/build/now-tracked.js`) },
    });
  });

  it('holds no kernel watch below ignored folders', async () => {
    // 150 folders in a .gitignored folder and 150 in a nested one; the watcher already runs, so to be sure it
    // never entered them, they are made and then watched from a fresh start.
    await sh(root, 'for i in $(seq 1 150); do mkdir -p build/d$i pkg/out/d$i node_modules/m$i; done');
    abort.abort();
    await server.close();
    const withoutServer = await inotifyWatches();
    await serve();
    const watching = (await inotifyWatches()) - withoutServer;
    // The root, pkg/, logs/ and the repo's git dir folders: a dozen or two, not hundreds.
    expect(watching).toBeGreaterThan(0);
    expect(watching).toBeLessThan(40);
  });
});
