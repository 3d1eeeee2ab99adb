/**
 * `POST /workspace/sync` (Intentic) through Intentic's client, over real repositories cloned from a local bare
 * remote: each status of docs/intentic.md#sync's table, and a repo left exactly as it was whenever it is not
 * fast-forwarded.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitProcess } from '../../../adapters/git/git-process.ts';
import { startGitHttpServer } from '../../support/git-http-server.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { createWorkspaceApp } from '../../../runtime/app.ts';
import { waitFor } from '../../support/processes.ts';
import { intenticClient, orpcError } from '../../support/intentic-contract.ts';
import { nodeApp, tempWorkspace, TEST_TOKEN, type TempWorkspace } from '../../support/workspace.ts';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd, stdio: 'pipe' }).toString().trim();

let ws: TempWorkspace;
let remotes: string;
let bare: string;
let upstream: string;
beforeEach(async () => {
  ws = await tempWorkspace({ 'notes.txt': 'n\n' });
  remotes = await mkdtemp(join(tmpdir(), 'wsapi-sync-'));
  bare = join(remotes, 'r.git');
  upstream = join(remotes, 'upstream');
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare]);
  execFileSync('git', ['clone', '-q', bare, upstream], { stdio: 'pipe' });
  await commit(upstream, 'a.txt', 'one\n');
  git(upstream, 'push', '-q', 'origin', 'main');
});
afterEach(async () => {
  await ws.cleanup();
  await rm(remotes, { recursive: true, force: true });
});

async function commit(repo: string, file: string, text: string) {
  await writeFile(join(repo, file), text);
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', `${file}: ${text.trim()}`);
}
const cloneInto = (name: string) => {
  execFileSync('git', ['clone', '-q', bare, join(ws.root, name)], { stdio: 'pipe' });
  return join(ws.root, name);
};
const app = () => nodeApp(ws.root, { git: createGitProcess({ root: ws.root }) });
const sync = (workspace = app()) => intenticClient(workspace).workspace.sync();

describe('POST /workspace/sync', () => {
  it('reports every repo by the table: current, updated, dirty, diverged, no-remote — in discovery order', async () => {
    const current = cloneInto('current');
    const updated = cloneInto('updated');
    const dirty = cloneInto('dirty');
    const diverged = cloneInto('diverged');
    execFileSync('git', ['init', '-q', join(ws.root, 'local-only')]);
    const untracked = cloneInto('no-upstream');
    git(untracked, 'checkout', '-q', '-b', 'topic'); // a branch without an upstream
    await commit(upstream, 'b.txt', 'two\n');
    git(upstream, 'push', '-q', 'origin', 'main');
    git(current, 'pull', '-q');
    await writeFile(join(dirty, 'scratch.txt'), 'mine\n'); // untracked counts as dirty
    await commit(diverged, 'local.txt', 'mine\n');
    const before = { dirty: git(dirty, 'rev-parse', 'HEAD'), diverged: git(diverged, 'rev-parse', 'HEAD') };

    expect(await sync()).toEqual({
      repos: [
        { repo: 'current', status: 'current' },
        { repo: 'dirty', status: 'dirty', behind: 1 },
        { repo: 'diverged', status: 'diverged', ahead: 1, behind: 1 },
        { repo: 'local-only', status: 'no-remote' },
        { repo: 'no-upstream', status: 'no-remote' },
        { repo: 'updated', status: 'updated', behind: 1, head: git(upstream, 'rev-parse', '--short', 'HEAD') },
      ],
    });
    expect(git(updated, 'rev-parse', 'HEAD')).toBe(git(upstream, 'rev-parse', 'HEAD'));
    expect({ dirty: git(dirty, 'rev-parse', 'HEAD'), diverged: git(diverged, 'rev-parse', 'HEAD') }).toEqual(before);
    expect(git(dirty, 'status', '--porcelain')).toBe('?? scratch.txt');
  });

  it('a fetch that fails, or a merge refused because another git holds the index lock, is an error with git’s text; nothing moves', async () => {
    const gone = cloneInto('gone');
    git(gone, 'remote', 'set-url', 'origin', join(remotes, 'missing.git'));
    const locked = cloneInto('locked');
    await commit(upstream, 'b.txt', 'two\n');
    git(upstream, 'push', '-q', 'origin', 'main');
    await writeFile(join(locked, '.git/index.lock'), '');
    const head = git(locked, 'rev-parse', 'HEAD');
    const answer = await sync();
    expect(answer).toEqual({
      repos: [
        { repo: 'gone', status: 'error', message: expect.stringContaining('does not appear to be a git repository') },
        { repo: 'locked', status: 'error', message: expect.stringContaining('index.lock') },
      ],
    });
    expect(git(locked, 'rev-parse', 'HEAD')).toBe(head);
  });

  it('a repo whose sync is still running is skipped by a second sync', async () => {
    const hang = await startGitHttpServer({ projectRoot: remotes, mode: 'hang' });
    const slow = cloneInto('slow');
    git(slow, 'remote', 'set-url', 'origin', `${hang.url}/r.git`);
    const workspace = app();
    const first = sync(workspace);
    await waitFor(() => hang.requests > 0, { timeoutMs: 15_000, what: 'the git server to be asked' });
    expect(await sync(workspace)).toEqual({ repos: [{ repo: 'slow', status: 'skipped' }] });
    await hang.close(); // the first one's fetch loses its connection
    expect(await first).toEqual({ repos: [{ repo: 'slow', status: 'error', message: expect.any(String) }] });
  });

  it('a workspace without repos answers {repos: []}; where git cannot run the call is NOT_IMPLEMENTED', async () => {
    expect(await sync()).toEqual({ repos: [] });
    const memory = createWorkspaceApp({ fs: new MemoryFileSystem({ '/ws/a.txt': 'a' }), root: '/ws', auth: { token: TEST_TOKEN } });
    const error = await orpcError(sync(memory));
    expect({ code: error.code, status: error.status, message: error.message }).toEqual({
      code: 'NOT_IMPLEMENTED',
      status: 501,
      message: 'git is not available on this runtime',
    });
  });
});
