/**
 * The `/ws` git commands that move changes between tree and index (docs/noide-protocol.md#git-commands): git_add, git_stage_all,
 * git_unstage, git_unstage_all, git_discard, git_discard_all, git_resolve_conflict; the `file` rule (checked before
 * git runs, nothing changed), literal pathspecs, the delete rules of a discard, the index lock, a plain folder and a
 * workspace that sits inside another repository. Over a real socket, real repos; the state checked with git itself.
 */
import { existsSync, lstatSync, readlinkSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitTestServer } from '../../support/git-test-server.ts';
import { RpcClient } from '../../support/rpc-client.ts';
import { git, gitTry, openGitSuite, outcome, porcelain, put, read, repoState, tree, type GitSuite } from './git-fixture.ts';

let suite: GitSuite;
beforeAll(async () => {
  suite = await openGitSuite();
});
afterAll(() => suite.close());

const NOT_A_REPO = 'fatal: not a git repository (or any of the parent directories): .git';
const BAD_FILES = ['', '/etc/passwd', '..', 'a/../..', '.', 'a/..', '.git/config', 'x/.git/y', '.git', '.GIT/config'];

/** A committed repo with a.txt and b.txt, then a.txt modified, c.txt untracked, b.txt deleted. */
async function dirtyRepo(): Promise<string> {
  const repo = await suite.repo({ files: { 'a.txt': 'a\n', 'b.txt': 'b\n' }, commit: 'first' });
  await put(repo, 'a.txt', 'a2\n');
  await put(repo, 'c.txt', 'c\n');
  await rm(join(repo, 'b.txt'));
  return repo;
}

describe('git_add and git_stage_all', () => {
  it('git_add stages one file (git prints nothing: "")', async () => {
    const repo = await dirtyRepo();
    expect(await suite.call(repo, 'git_add', { file: 'a.txt' }).then(outcome)).toEqual({ ok: true, result: '' });
    expect(porcelain(repo)).toEqual(['M  a.txt', ' D b.txt', '?? c.txt']);
    expect(await suite.ok(repo, 'git_add', { file: 'b.txt' })).toBe('');
    expect(porcelain(repo)).toEqual(['M  a.txt', 'D  b.txt', '?? c.txt']);
  });

  it('pathspecs are literal: `*.txt` stages only the file named `*.txt`, `:/x` only `:/x`, `-n` is a file', async () => {
    const repo = await suite.repo({ files: { 'keep.txt': 'k\n' }, commit: 'first' });
    await put(repo, '*.txt', 'star\n');
    await put(repo, 'other.txt', 'o\n');
    await put(repo, ':/x', 'colon\n');
    await put(repo, 'x', 'root x\n');
    await put(repo, '-n', 'dash\n');
    expect(await suite.ok(repo, 'git_add', { file: '*.txt' })).toBe('');
    expect(await suite.ok(repo, 'git_add', { file: ':/x' })).toBe('');
    expect(await suite.ok(repo, 'git_add', { file: '-n' })).toBe('');
    expect(git(repo, 'diff', '--cached', '--name-only', '-z').split('\0').filter(Boolean)).toEqual(['*.txt', '-n', ':/x']);
    expect(porcelain(repo)).toEqual(['A  *.txt', 'A  -n', 'A  :/x', '?? other.txt', '?? x']);
  });

  it('spaces and unicode names, and an untracked folder `dir/` (all of it)', async () => {
    const repo = await suite.repo({ files: { 'keep.txt': 'k\n' }, commit: 'first' });
    await put(repo, 'a b.txt', 'space\n');
    await put(repo, 'ünï cödé.txt', 'u\n');
    await put(repo, 'dir/one.txt', '1\n');
    await put(repo, 'dir/deep/two.txt', '2\n');
    await put(repo, 'outside-dir.txt', 'not in dir\n');
    for (const file of ['a b.txt', 'ünï cödé.txt', 'dir/']) expect(await suite.ok(repo, 'git_add', { file })).toBe('');
    expect(git(repo, 'diff', '--cached', '--name-only', '-z').split('\0').filter(Boolean)).toEqual([
      'a b.txt',
      'dir/deep/two.txt',
      'dir/one.txt',
      'ünï cödé.txt',
    ]);
  });

  it('git_stage_all: modified, deleted and untracked, all staged', async () => {
    const repo = await dirtyRepo();
    expect(await suite.ok(repo, 'git_stage_all')).toBe('');
    expect(porcelain(repo)).toEqual(['M  a.txt', 'D  b.txt', 'A  c.txt']);
  });

  it('a held index lock: git_add fails with git’s text, nothing staged', async () => {
    const repo = await dirtyRepo();
    writeFileSync(join(repo, '.git/index.lock'), '');
    const before = repoState(repo);
    const reply = outcome(await suite.call(repo, 'git_add', { file: 'a.txt' }));
    expect(reply).toEqual({
      ok: false,
      error:
        `fatal: Unable to create '${realpathSync(repo)}/.git/index.lock': File exists.\n\n` +
        'Another git process seems to be running in this repository, e.g.\n' +
        "an editor opened by 'git commit'. Please make sure all processes\n" +
        'are terminated then try again. If it still fails, a git process\n' +
        'may have crashed in this repository earlier:\n' +
        'remove the file manually to continue.',
    });
    expect(outcome(await suite.call(repo, 'git_stage_all'))).toEqual(reply);
    expect(repoState(repo)).toEqual(before);
    expect(porcelain(repo)).toEqual([' M a.txt', ' D b.txt', '?? c.txt']);
  });
});

describe('the `file` rule', () => {
  it('Invalid file before git runs, for every command taking a file, nothing changed', async () => {
    const repo = await dirtyRepo();
    await put(repo, 'x/.git/y', 'nested\n');
    git(repo, 'add', 'a.txt');
    const before = repoState(repo);
    const commands: [string, Record<string, unknown>][] = [
      ['git_add', {}],
      ['git_unstage', {}],
      ['git_discard', {}],
      ['git_resolve_conflict', { side: 'ours' }],
      ['git_resolve_conflict', { side: 'theirs' }],
    ];
    for (const [command, extra] of commands) {
      for (const file of BAD_FILES) {
        const reply = outcome(await suite.call(repo, command, { ...extra, file }));
        expect({ command, file, ...reply }).toEqual({ command, file, ok: false, error: 'Invalid file' });
      }
    }
    expect(repoState(repo)).toEqual(before);
    expect(existsSync(join(repo, '.git/config'))).toBe(true);
  });

  it('a missing or mistyped file is the framing’s invalid arg', async () => {
    const repo = await dirtyRepo();
    for (const args of [{}, { file: 3 }, { file: null }]) {
      const reply = outcome(await suite.call(repo, 'git_add', args));
      expect(reply).toMatchObject({ ok: false, error: expect.stringMatching(/^invalid arg 'file': /) });
    }
    expect(porcelain(repo)).toEqual([' M a.txt', ' D b.txt', '?? c.txt']);
  });
});

describe('git_unstage and git_unstage_all', () => {
  it('with HEAD: `reset HEAD -- F` and its text; the change stays in the tree', async () => {
    const repo = await dirtyRepo();
    git(repo, 'add', '-A');
    expect(await suite.ok(repo, 'git_unstage', { file: 'a.txt' })).toBe('Unstaged changes after reset:\nM\ta.txt');
    expect(porcelain(repo)).toEqual([' M a.txt', 'D  b.txt', 'A  c.txt']);
    expect(read(repo, 'a.txt')).toBe('a2\n');
    expect(await suite.ok(repo, 'git_unstage_all')).toBe('Unstaged changes after reset:\nM\ta.txt\nD\tb.txt');
    expect(porcelain(repo)).toEqual([' M a.txt', ' D b.txt', '?? c.txt']);
  });

  it('without commits: unstaged (reset, else `rm --cached`), every file kept on disk', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' } });
    git(repo, 'add', '-A');
    // What git answers for the seed's first step here decides the text: `reset HEAD -- F` works on an unborn
    // branch in newer git; where it fails, the fallback `rm --cached -- F` prints `rm 'F'`.
    const twin = await suite.repo({ files: { 'a.txt': 'a\n' } });
    git(twin, 'add', '-A');
    const reset = gitTry(twin, 'reset', 'HEAD', '--', 'a.txt');
    const expected = reset.code === 0 ? (reset.stdout + reset.stderr).trim() : "rm 'a.txt'";
    expect(await suite.ok(repo, 'git_unstage', { file: 'a.txt' })).toBe(expected);
    expect(porcelain(repo)).toEqual(['A  b.txt', 'A  c.txt', '?? a.txt']);
    const resetAll = gitTry(twin, 'reset', 'HEAD');
    const expectedAll = resetAll.code === 0 ? (resetAll.stdout + resetAll.stderr).trim() : "rm 'b.txt'\nrm 'c.txt'";
    expect(await suite.ok(repo, 'git_unstage_all')).toBe(expectedAll);
    expect(porcelain(repo)).toEqual(['?? a.txt', '?? b.txt', '?? c.txt']);
    expect(tree(repo)).toEqual({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' });
  });
});

describe('git_discard', () => {
  it('tracked: the index version comes back (a staged change stays)', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    await put(repo, 'a.txt', 'staged\n');
    git(repo, 'add', 'a.txt');
    await put(repo, 'a.txt', 'worktree\n');
    // `checkout -- F` reports "Updated 1 path from the index" only on a terminal: its text here is "".
    const reply = outcome(await suite.call(repo, 'git_discard', { file: 'a.txt' }));
    expect(reply).toEqual({ ok: true, result: '' });
    expect(read(repo, 'a.txt')).toBe('staged\n');
    expect(porcelain(repo)).toEqual(['M  a.txt']);
  });

  it('untracked: a file, a folder (recursively) and a name like `-rf` are deleted → ""', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    await put(repo, 'u.txt', 'u\n');
    await put(repo, 'dir/one.txt', '1\n');
    await put(repo, 'dir/deep/two.txt', '2\n');
    await put(repo, '-rf', 'dash\n');
    await put(repo, 'keep.txt', 'keep\n');
    for (const file of ['u.txt', 'dir/', '-rf']) {
      expect({ file, ...outcome(await suite.call(repo, 'git_discard', { file })) }).toEqual({ file, ok: true, result: '' });
    }
    expect(tree(repo)).toEqual({ 'a.txt': 'a\n', 'keep.txt': 'keep\n' });
  });

  it('a link is deleted as a link: the folder it points to, outside the repo, is untouched', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    const outside = await suite.folder('outside-link-target');
    await put(outside, 'precious.txt', 'precious\n');
    symlinkSync(outside, join(repo, 'link'));
    symlinkSync(join(outside, 'precious.txt'), join(repo, 'file-link'));
    expect(await suite.call(repo, 'git_discard', { file: 'link' }).then(outcome)).toEqual({ ok: true, result: '' });
    expect(await suite.call(repo, 'git_discard', { file: 'file-link' }).then(outcome)).toEqual({ ok: true, result: '' });
    expect(existsSync(join(repo, 'link')) || isLink(join(repo, 'link'))).toBe(false);
    expect(isLink(join(repo, 'file-link'))).toBe(false);
    expect(tree(outside)).toEqual({ 'precious.txt': 'precious\n' });
  });

  it('`link/x` where link → a folder outside: Invalid file, the outside file untouched', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    const outside = await suite.folder('outside-through-link');
    await put(outside, 'x', 'outside x\n');
    await put(outside, 'sub/y', 'outside y\n');
    symlinkSync(outside, join(repo, 'link'));
    for (const file of ['link/x', 'link/sub', 'link/sub/y']) {
      expect({ file, ...outcome(await suite.call(repo, 'git_discard', { file })) }).toEqual({ file, ok: false, error: 'Invalid file' });
    }
    expect(tree(outside)).toEqual({ x: 'outside x\n', 'sub/': '/', 'sub/y': 'outside y\n' });
    expect(readlinkSync(join(repo, 'link'))).toBe(outside);
    // `link/` names the entry `link` (status prints an untracked folder with its `/`): the link itself is deleted,
    // never the folder it points to.
    expect(outcome(await suite.call(repo, 'git_discard', { file: 'link/' }))).toEqual({ ok: true, result: '' });
    expect(isLink(join(repo, 'link'))).toBe(false);
    expect(tree(outside)).toEqual({ x: 'outside x\n', 'sub/': '/', 'sub/y': 'outside y\n' });
  });
});

describe('git_discard_all', () => {
  it('with HEAD: staged and unstaged changes gone, untracked files and folders gone; clean’s text', async () => {
    const repo = await dirtyRepo();
    git(repo, 'add', 'a.txt');
    await put(repo, 'dir/deep/n.txt', 'n\n');
    expect(await suite.ok(repo, 'git_discard_all')).toBe('Removing c.txt\nRemoving dir/');
    expect(porcelain(repo)).toEqual([]);
    expect(tree(repo)).toEqual({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
  });

  it('with HEAD and nothing untracked: "" (clean printed nothing)', async () => {
    const repo = await dirtyRepo();
    await rm(join(repo, 'c.txt'));
    expect(await suite.call(repo, 'git_discard_all').then(outcome)).toEqual({ ok: true, result: '' });
    expect(porcelain(repo)).toEqual([]);
  });

  it('without commits: staged files unstaged, every file still on disk', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n', 'dir/b.txt': 'b\n', 'u.txt': 'u\n' } });
    git(repo, 'add', 'a.txt', 'dir/b.txt');
    const files = tree(repo);
    const reply = outcome(await suite.call(repo, 'git_discard_all'));
    expect(reply).toEqual({ ok: true, result: '' });
    expect(porcelain(repo)).toEqual(['?? a.txt', '?? dir/b.txt', '?? u.txt']);
    expect(tree(repo)).toEqual(files);
  });
});

describe('git_resolve_conflict', () => {
  /** main and other both change f.txt; merged on main with git directly: f.txt unmerged. */
  async function conflicted(): Promise<string> {
    const repo = await suite.repo({ files: { 'f.txt': 'base\n' }, commit: 'base' });
    git(repo, 'checkout', '-q', '-b', 'other');
    await put(repo, 'f.txt', 'theirs\n');
    git(repo, 'commit', '-q', '-am', 'theirs');
    git(repo, 'checkout', '-q', 'main');
    await put(repo, 'f.txt', 'ours\n');
    git(repo, 'commit', '-q', '-am', 'ours');
    expect(gitTry(repo, 'merge', '--no-edit', 'other').code).toBe(1);
    expect(porcelain(repo)).toEqual(['UU f.txt']);
    return repo;
  }

  it('ours: our version, staged, no longer unmerged', async () => {
    const repo = await conflicted();
    expect(await suite.ok(repo, 'git_resolve_conflict', { file: 'f.txt', side: 'ours' })).toBe('');
    expect(read(repo, 'f.txt')).toBe('ours\n');
    expect(porcelain(repo)).toEqual([]); // ours == HEAD: nothing left to commit but the merge itself
    expect(git(repo, 'ls-files', '-u')).toBe('');
  });

  it('theirs: their version, staged', async () => {
    const repo = await conflicted();
    expect(await suite.ok(repo, 'git_resolve_conflict', { file: 'f.txt', side: 'theirs' })).toBe('');
    expect(read(repo, 'f.txt')).toBe('theirs\n');
    expect(porcelain(repo)).toEqual(['M  f.txt']);
  });

  it('any side but `theirs` is ours', async () => {
    const repo = await conflicted();
    expect(await suite.ok(repo, 'git_resolve_conflict', { file: 'f.txt', side: 'THEIRS' })).toBe('');
    expect(read(repo, 'f.txt')).toBe('ours\n');
  });
});

describe('not a repository', () => {
  it('a plain folder: git’s not-a-repository error for every writing command; outside the workspace refused', async () => {
    const plain = await suite.folder('plain-stage');
    await put(plain, 'a.txt', 'a\n');
    const calls: [string, Record<string, unknown>][] = [
      ['git_add', { file: 'a.txt' }],
      ['git_stage_all', {}],
      ['git_unstage', { file: 'a.txt' }],
      ['git_unstage_all', {}],
      ['git_discard', { file: 'a.txt' }],
      ['git_discard_all', {}],
      ['git_resolve_conflict', { file: 'a.txt', side: 'ours' }],
    ];
    for (const [command, args] of calls) {
      expect({ command, ...outcome(await suite.call(plain, command, args)) }).toEqual({ command, ok: false, error: NOT_A_REPO });
      expect({ command, ...outcome(await suite.client.call(command, { path: '../..', ...args })) }).toEqual({
        command,
        ok: false,
        error: 'path is outside the workspace',
      });
    }
    expect(tree(plain)).toEqual({ 'a.txt': 'a\n' });
    expect(existsSync(join(plain, '.git'))).toBe(false);
  });
});

describe('a workspace inside another repository', () => {
  it('commands at the root say not-a-repository and touch nothing above; git_init makes the root’s own .git', async () => {
    const outer = realpathSync(await mkdtemp(join(tmpdir(), 'wsapi-outer-')));
    try {
      git(outer, 'init', '-q', '-b', 'main');
      await put(outer, 'top.txt', 'top\n');
      await put(outer, 'ws/inner.txt', 'inner\n');
      git(outer, 'add', 'top.txt');
      git(outer, 'commit', '-q', '-m', 'outer');
      await put(outer, 'top.txt', 'top changed\n');
      const root = join(outer, 'ws');
      await mkdir(join(root, 'sub'), { recursive: true });
      const before = repoState(outer);
      const server = await startGitTestServer(root);
      const client = await RpcClient.connect(server);
      try {
        const calls: [string, Record<string, unknown>][] = [
          ['git_add', { file: 'inner.txt' }],
          ['git_stage_all', {}],
          ['git_unstage_all', {}],
          ['git_discard', { file: 'inner.txt' }],
          ['git_discard_all', {}],
          ['git_commit', { message: 'from inside' }],
          ['git_stash', {}],
          ['get_git_diff', { file: 'inner.txt' }],
        ];
        for (const [command, args] of calls) {
          for (const path of ['.', 'sub']) {
            const reply = outcome(await client.call(command, { path, ...args }));
            expect({ command, path, ...reply }).toEqual({ command, path, ok: false, error: NOT_A_REPO });
          }
        }
        expect(repoState(outer)).toEqual(before);
        expect(await client.ok('git_init', { path: '.' })).toBe(`Initialized empty Git repository in ${root}/.git/`);
        expect(existsSync(join(root, '.git/HEAD'))).toBe(true);
        expect(git(root, 'rev-parse', '--show-toplevel')).toBe(root);
        const after = repoState(outer);
        expect({ head: after.head, index: after.index }).toEqual({ head: before.head, index: before.index });
        expect(read(outer, 'top.txt')).toBe('top changed\n');
      } finally {
        await client.close();
        await server.close();
      }
    } finally {
      await rm(outer, { recursive: true, force: true });
    }
  });
});

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
