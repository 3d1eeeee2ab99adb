/**
 * The git commands that read a repo's state, over a real `/ws` socket on a real server, against real repos in temp
 * folders: the exact GitStatus, GitCommitInfo and GitStashInfo shapes of docs/noide-protocol.md#git-commands.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NodeServer } from '../../../runtime/node/server.ts';
import { RpcClient, startTestServer } from '../../support/rpc-client.ts';
import { tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Tess T', '-c', 'user.email=t@example.com', ...args], { cwd, stdio: 'pipe' }).toString().trim();

let ws: TempWorkspace;
let server: NodeServer;
let client: RpcClient;
let repo: string;
beforeEach(async () => {
  ws = await tempWorkspace({ 'outside-repo.txt': 'x\n' });
  repo = join(ws.root, 'app');
  await mkdir(repo);
  git(repo, 'init', '-q', '-b', 'main');
  server = await startTestServer(ws.root);
  client = await RpcClient.connect(server);
});
afterEach(async () => {
  await client.close?.();
  await server.close();
  await ws.cleanup();
});

const file = (path: string, text: string) => writeFile(join(repo, path), text);

describe('get_git_status', () => {
  it('a repo without commits: the unborn branch, staged A, an untracked folder as dir/', async () => {
    await file('a.txt', 'a\n');
    git(repo, 'add', 'a.txt');
    await mkdir(join(repo, 'new'));
    await file('new/n.txt', 'n\n');
    expect(await client.ok('get_git_status', { path: 'app' })).toEqual({
      branch: 'main', ahead: 0, behind: 0,
      modified: [], staged: ['a.txt'], untracked: ['new/'], deleted: [], unmerged: [],
      stagedDetails: { 'a.txt': 'A' }, worktreeDetails: { 'new/': 'U' },
      worktreeStats: {}, stagedStats: { 'a.txt': { insertions: 1, deletions: 0 } },
    });
  });

  it('renames, spaces and unicode names unquoted, modified and deleted, from a folder inside the repo', async () => {
    await file('old name.txt', 'one\ntwo\n');
    await file('gone.txt', 'g\n');
    await file('ü.txt', 'u\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'first');
    await rename(join(repo, 'old name.txt'), join(repo, 'new name.txt'));
    git(repo, 'add', '-A', 'old name.txt', 'new name.txt');
    await file('ü.txt', 'u\nv\n');
    execFileSync('rm', [join(repo, 'gone.txt')]);
    await mkdir(join(repo, 'sub'));
    expect(await client.ok('get_git_status', { path: join(realpathSync(repo), 'sub') })).toEqual({
      branch: 'main', ahead: 0, behind: 0,
      modified: ['ü.txt'], staged: ['new name.txt'], untracked: [], deleted: ['gone.txt'], unmerged: [],
      stagedDetails: { 'new name.txt': 'R' }, worktreeDetails: { 'gone.txt': 'D', 'ü.txt': 'M' },
      worktreeStats: { 'gone.txt': { insertions: 0, deletions: 1 }, 'ü.txt': { insertions: 1, deletions: 0 } },
      stagedStats: { 'new name.txt': { insertions: 0, deletions: 0 } },
    });
  });

  it('worktree stats come from a diff limited to the listed paths, literally (`*`, `:`), and agree with the whole diff past 200 paths', async () => {
    const names = ['*.txt', ':x', 'plain.txt', 'conf.txt'];
    for (const name of names) await file(name, 'one\n');
    for (let i = 0; i < 201; i++) await file(`many-${i}.txt`, 'one\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'first');
    await file('*.txt', 'one\ntwo\n');
    await file(':x', ''); // as pathspec magic, `:x` would fail the whole diff (no stats at all)
    const few = (await client.ok('get_git_status', { path: 'app' })) as { worktreeStats: unknown; modified: string[] };
    expect(few.modified).toEqual(['*.txt', ':x']);
    expect(few.worktreeStats).toEqual({ '*.txt': { insertions: 1, deletions: 0 }, ':x': { insertions: 0, deletions: 1 } });

    for (let i = 0; i < 201; i++) await file(`many-${i}.txt`, 'two\n');
    const many = (await client.ok('get_git_status', { path: 'app' })) as { worktreeStats: Record<string, unknown>; modified: string[] };
    expect(many.modified).toHaveLength(203);
    expect(Object.keys(many.worktreeStats).sort()).toEqual([...many.modified].sort());
    expect(many.worktreeStats['many-200.txt']).toEqual({ insertions: 1, deletions: 1 });
  });

  it('the repo of a folder is asked again once a repo appears in between, or the repo goes away', async () => {
    await mkdir(join(repo, 'sub'));
    await file('sub/s.txt', 's\n');
    expect(await client.ok('get_git_status', { path: 'app/sub' })).toMatchObject({ branch: 'main', untracked: ['sub/'] });
    expect(await client.call('git_add', { path: 'app/sub', file: 'sub/s.txt' })).toMatchObject({ ok: true });
    git(join(repo, 'sub'), 'init', '-q', '-b', 'inner'); // now sub is a repo of its own
    expect(await client.ok('get_git_status', { path: 'app/sub' })).toMatchObject({ branch: 'inner', staged: [], untracked: ['s.txt'] });
    expect(await client.call('git_add', { path: 'app/sub', file: 's.txt' })).toMatchObject({ ok: true });
    expect(git(join(repo, 'sub'), 'diff', '--cached', '--name-only')).toBe('s.txt');
    execFileSync('rm', ['-rf', join(repo, 'sub/.git'), join(repo, '.git')]);
    expect(await client.call('get_git_status', { path: 'app/sub' })).toMatchObject({ ok: false, error: 'not a git repository' });
    expect(await client.call('git_add', { path: 'app/sub', file: 's.txt' })).toMatchObject({
      ok: false,
      error: 'fatal: not a git repository (or any of the parent directories): .git',
    });
  });

  it('outside any repo it is “not a git repository”; outside the workspace it is refused', async () => {
    expect(await client.call('get_git_status', { path: '.' })).toMatchObject({ ok: false, error: 'not a git repository' });
    expect(await client.call('get_git_status', { path: '../..' })).toMatchObject({ ok: false, error: 'path is outside the workspace' });
    expect(await client.call('get_git_status', {})).toMatchObject({ ok: false, error: expect.stringContaining("invalid arg 'path'") });
  });
});

describe('git_log, git_stash_list, git_init', () => {
  it('git_log: newest first with numstat sums, limit, a mistyped limit as absent, [] without commits or repo', async () => {
    expect(await client.ok('git_log', { path: 'app' })).toEqual([]);
    expect(await client.ok('git_log', { path: '.' })).toEqual([]);
    await file('a.txt', 'a\nb\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'first: with | and  spaces');
    await file('a.txt', 'a\n');
    git(repo, 'commit', '-q', '-am', 'second');
    const log = (await client.ok('git_log', { path: 'app' })) as { hash: string; message: string }[];
    const expected = git(repo, 'log', '--format=%H %h %at').split('\n').map((line) => line.split(' '));
    expect(log).toEqual([
      { hash: expected[0]![0], shortHash: expected[0]![1], message: 'second', author: 'Tess T', time: Number(expected[0]![2]), insertions: 0, deletions: 1 },
      { hash: expected[1]![0], shortHash: expected[1]![1], message: 'first: with | and  spaces', author: 'Tess T', time: Number(expected[1]![2]), insertions: 2, deletions: 0 },
    ]);
    expect(await client.ok('git_log', { path: 'app', limit: 1 })).toEqual([log[0]]);
    expect(await client.ok('git_log', { path: 'app', limit: '1' })).toEqual(log);
  });

  it('git_log: limit 0 is git’s -0, no commits; a negative or fractional limit counts as absent', async () => {
    await file('a.txt', 'a\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'first');
    expect(await client.ok('git_log', { path: 'app', limit: 0 })).toEqual([]);
    expect(await client.ok('git_log', { path: 'app', limit: -1 })).toHaveLength(1);
    expect(await client.ok('git_log', { path: 'app', limit: 0.5 })).toHaveLength(1);
  });

  it('git_stash_list: stashes with untracked files, newest first; [] with none', async () => {
    await file('a.txt', 'a\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'first');
    expect(await client.ok('git_stash_list', { path: 'app' })).toEqual([]);
    await file('u.txt', 'untracked\n');
    git(repo, 'stash', 'push', '-q', '-u', '-m', 'WIP from NoIDE');
    const time = Number(git(repo, 'log', '-g', '--format=%at', 'refs/stash'));
    expect(await client.ok('git_stash_list', { path: 'app' })).toEqual([{ ref: 'stash@{0}', message: 'On main: WIP from NoIDE', time }]);
  });

  it('git_init: initialises the folder and answers git’s line with the real path', async () => {
    await mkdir(join(ws.root, 'fresh'));
    expect(await client.ok('git_init', { path: 'fresh' })).toBe(`Initialized empty Git repository in ${realpathSync(join(ws.root, 'fresh'))}/.git/`);
    expect(existsSync(join(ws.root, 'fresh/.git/HEAD'))).toBe(true);
  });
});
