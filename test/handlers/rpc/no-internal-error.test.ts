/**
 * Every `/ws` command against the paths that trip the OS rather than our checks — a folder that does not exist, a
 * file where a folder is expected (and a folder where a file is), a path under a file — over a real socket on a
 * real server: each answers a real message in the protocol's style, never the generic `internal error`.
 */
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpcCommands } from '../../../handlers/rpc/command-table.ts';
import type { NodeServer } from '../../../runtime/node/server.ts';
import { startGitTestServer } from '../../support/git-test-server.ts';
import { RpcClient } from '../../support/rpc-client.ts';
import { tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';
import { git } from './git-fixture.ts';

/** The bad paths, by what trips on them; `repo` holds a real repo so that git's own checks run past `path`. */
const BAD_PATHS = {
  missing: 'nope/missing',
  'a file': 'plain.txt',
  'a folder': 'folder',
  'under a file': 'plain.txt/sub',
  'a file in a repo': 'repo/tracked.txt',
  'under a file in a repo': 'repo/tracked.txt/sub',
  'a link to itself': 'loop',
  'under a link to itself': 'loop/sub',
  'a name past 255 bytes': 'n'.repeat(300),
  'a path past 4096 bytes': 'd/'.repeat(2100),
} as const;

const EMPTY_ZIP = Buffer.from([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)]).toString('base64');

/** Each command's arguments with `p` as every path it takes (one row per path argument). */
const ARGS: Record<string, ((p: string) => Record<string, unknown>)[]> = {
  read_file: [(p) => ({ path: p })],
  read_file_base64: [(p) => ({ path: p })],
  download_file: [(p) => ({ path: p })],
  write_file: [(p) => ({ path: p, content: 'x' })],
  upload_file: [(p) => ({ path: p, content: 'eA==' })],
  create_file: [(p) => ({ path: p, content: 'x' })],
  create_directory: [(p) => ({ path: p })],
  rename_entry: [(p) => ({ from: p, to: 'renamed' }), (p) => ({ from: 'movable.txt', to: p })],
  copy_entry: [(p) => ({ from: p, to: 'copied' }), (p) => ({ from: 'plain.txt', to: p })],
  delete_entry: [(p) => ({ path: p })],
  file_exists: [(p) => ({ path: p })],
  read_directory: [(p) => ({ path: p })],
  list_files: [(p) => ({ path: p })],
  search_in_files: [(p) => ({ path: p, query: 'x' })],
  extract_zip: [(p) => ({ zipContent: EMPTY_ZIP, destDir: p })],
  run_command: [(p) => ({ command: `cat ${p}` })],
  get_cwd: [() => ({})],
  // kilo is not installed here: a chat that gets past its cwd ends with the not-found text, never a real agent.
  chat_stream: [(p) => ({ command: 'kilo', cwd: p }), (p) => ({ command: 'kilo', attachments: [{ name: p, content: 'x' }] })],
  chat_cancel: [(p) => ({ id: p })],
  chat_models: [(p) => ({ agent: p })],
  chat_check_install: [(p) => ({ command: p })],
  pty_spawn: [(p) => ({ sessionId: 's1', cwd: p })],
  pty_write: [(p) => ({ sessionId: 'none', data: p })],
  pty_resize: [() => ({ sessionId: 'none', cols: 80, rows: 24 })],
  pty_kill: [() => ({ sessionId: 'none' })],
  pty_attach: [() => ({ sessionId: 'none' })],
  pty_detach: [() => ({ sessionId: 'none' })],
  get_git_status: [(p) => ({ path: p })],
  git_log: [(p) => ({ path: p }), (p) => ({ path: p, limit: 0 })],
  git_stash_list: [(p) => ({ path: p })],
  git_init: [(p) => ({ path: p })],
  get_git_diff: [(p) => ({ path: p, file: 'tracked.txt' })],
  get_git_staged_diff: [(p) => ({ path: p, file: 'tracked.txt' })],
  get_git_head_file: [(p) => ({ path: p, file: 'tracked.txt' })],
  git_show_index: [(p) => ({ path: p, file: 'tracked.txt' })],
  git_add: [(p) => ({ path: p, file: 'tracked.txt' })],
  git_stage_all: [(p) => ({ path: p })],
  git_unstage: [(p) => ({ path: p, file: 'tracked.txt' })],
  git_unstage_all: [(p) => ({ path: p })],
  git_discard: [(p) => ({ path: p, file: 'tracked.txt' })],
  git_discard_all: [(p) => ({ path: p })],
  git_commit: [(p) => ({ path: p, message: 'm' })],
  git_undo_commit: [(p) => ({ path: p })],
  git_commit_diff: [(p) => ({ path: p, commit: 'abcd' })],
  git_stash: [(p) => ({ path: p })],
  git_stash_pop: [(p) => ({ path: p })],
  git_push: [(p) => ({ path: p })],
  git_fetch: [(p) => ({ path: p })],
  git_pull: [(p) => ({ path: p })],
  git_revert: [(p) => ({ path: p, commit: 'abcd' })],
  git_branch_list: [(p) => ({ path: p })],
  git_checkout_branch: [(p) => ({ path: p, name: 'b' })],
  git_merge: [(p) => ({ path: p, fromRef: 'b' })],
  git_merge_abort: [(p) => ({ path: p })],
  git_resolve_conflict: [(p) => ({ path: p, file: 'tracked.txt', side: 'ours' })],
};

let ws: TempWorkspace;

/** Puts back what a successful call changed (a write, a move, a git_init), so every row meets the same tree. */
async function resetTree(): Promise<void> {
  for (const name of ['nope', 'renamed', 'copied', 'folder', 'plain.txt', 'movable.txt', 'repo/tracked.txt', 'loop', 'd']) {
    await rm(join(ws.root, name), { recursive: true, force: true });
  }
  await mkdir(join(ws.root, 'folder'));
  await symlink('loop', join(ws.root, 'loop'));
  await writeFile(join(ws.root, 'plain.txt'), 'x\n');
  await writeFile(join(ws.root, 'movable.txt'), 'm\n');
  await writeFile(join(ws.root, 'repo/tracked.txt'), 't\n');
}
let server: NodeServer;
let client: RpcClient;
beforeAll(async () => {
  ws = await tempWorkspace({ 'repo/tracked.txt': 't\n' });
  git(join(ws.root, 'repo'), 'init', '-q', '-b', 'main');
  await resetTree();
  server = await startGitTestServer(ws.root);
  client = await RpcClient.connect(server);
});
afterAll(async () => {
  await client.close();
  await server.close();
  await ws.cleanup();
});

it('the table covers every command', () => {
  expect(Object.keys(ARGS).sort()).toEqual([...rpcCommands.keys()].sort());
});

describe.each(Object.entries(BAD_PATHS))('%s', (_kind, bad) => {
  it('no command answers internal error', async () => {
    const failures: string[] = [];
    for (const [command, rows] of Object.entries(ARGS)) {
      for (const args of rows) {
        await resetTree();
        const reply = await client.call(command, args(bad));
        if (!reply.ok && reply.error === 'internal error') failures.push(`${command} ${JSON.stringify(args(bad))}`);
        if (command === 'pty_spawn' && reply.ok) await client.ok('pty_kill', { sessionId: 's1' });
      }
    }
    expect(failures).toEqual([]);
  });
});

const NOT_A_REPO = 'fatal: not a git repository (or any of the parent directories): .git';

describe.each([
  ['a missing folder', 'nope/missing', 'Path does not exist'],
  ['a file', 'plain.txt', 'Not a folder: plain.txt'],
  ['a path under a file', 'plain.txt/sub', 'Not a folder: plain.txt/sub'],
  ['a file in a repo', 'repo/tracked.txt', 'Not a folder: repo/tracked.txt'],
])('git on %s: the answers outside a repository', (_kind, path, initError) => {
  it('status, log, stash list, show index and init by their own rules; the rest git’s own text', async () => {
    await resetTree();
    expect(await client.call('get_git_status', { path })).toMatchObject({ ok: false, error: 'not a git repository' });
    expect(await client.call('git_log', { path })).toMatchObject({ ok: true, result: [] });
    expect(await client.call('git_stash_list', { path })).toMatchObject({ ok: true, result: [] });
    expect(await client.call('git_show_index', { path, file: 'tracked.txt' })).toMatchObject({ ok: true, result: '' });
    expect(await client.call('git_init', { path })).toMatchObject({ ok: false, error: initError });
    for (const command of ['git_stage_all', 'git_branch_list', 'git_discard_all', 'git_push']) {
      expect(await client.call(command, { path })).toMatchObject({ ok: false, error: NOT_A_REPO });
    }
    expect(await client.call('get_git_diff', { path, file: 'tracked.txt' })).toMatchObject({ ok: false, error: NOT_A_REPO });
  });
});

it('a folder git already knew, removed and replaced by a file, is no repo any more', async () => {
  await resetTree();
  await mkdir(join(ws.root, 'repo/sub'));
  expect(await client.call('get_git_status', { path: 'repo/sub' })).toMatchObject({ ok: true });
  await rm(join(ws.root, 'repo/sub'), { recursive: true });
  expect(await client.call('get_git_status', { path: 'repo/sub' })).toMatchObject({ ok: false, error: 'not a git repository' });
  await writeFile(join(ws.root, 'repo/sub'), 'a file now');
  expect(await client.call('git_branch_list', { path: 'repo/sub' })).toMatchObject({ ok: false, error: NOT_A_REPO });
  await rm(join(ws.root, 'repo/sub'));
});

describe('a git past its deadline', () => {
  it('fails with `git <sub> timed out after <N> s` over /ws (not `internal error`)', async () => {
    const slow = await tempWorkspace({ 'repo/a.txt': 'a\n' });
    const repo = join(slow.root, 'repo');
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', 'a.txt');
    // A hook that never ends: what a stuck credential helper or a slow pre-commit does.
    await writeFile(join(repo, '.git/hooks/pre-commit'), '#!/bin/sh\nexec sleep 60\n', { mode: 0o755 });
    const slowServer = await startGitTestServer(slow.root, { WORKSPACE_GIT_TIMEOUT: '0.5' });
    const slowClient = await RpcClient.connect(slowServer);
    try {
      expect(await slowClient.call('git_commit', { path: 'repo', message: 'm' })).toMatchObject({
        ok: false,
        error: 'git commit timed out after 0.5 s',
      });
    } finally {
      await slowClient.close();
      await slowServer.close();
      await slow.cleanup();
    }
  });
});
