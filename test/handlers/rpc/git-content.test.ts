/**
 * The `/ws` git commands that answer content (docs/noide-protocol.md#git): get_git_diff, get_git_staged_diff,
 * get_git_head_file, git_show_index, git_commit_diff — git's stdout exactly, UTF-8 with bad bytes as U+FFFD, never
 * trimmed — plus the `file` and `commit` argument rules, checked before git runs. Over a real socket, real repos.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, gitBytes, openGitSuite, outcome, put, type GitSuite } from './git-fixture.ts';

let suite: GitSuite;
beforeAll(async () => {
  suite = await openGitSuite();
});
afterAll(() => suite.close());

const lossy = (bytes: Uint8Array) => new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes);
const NOT_A_REPO = 'fatal: not a git repository (or any of the parent directories): .git';

/** A repo whose `f.txt` ends in a blank line: changing its first line gives a diff ending in `" \n"`. */
async function blankTailRepo(): Promise<string> {
  return suite.repo({ files: { 'f.txt': 'one\ntwo\n\n' }, commit: 'first' });
}

describe('get_git_diff and get_git_staged_diff', () => {
  it('the worktree diff is git’s stdout exactly, its last blank context line " \\n" kept', async () => {
    const repo = await blankTailRepo();
    await put(repo, 'f.txt', 'ONE\ntwo\n\n');
    const old = git(repo, 'rev-parse', '--short', 'HEAD:f.txt');
    const now = git(repo, 'hash-object', 'f.txt').slice(0, old.length);
    const diff = await suite.ok(repo, 'get_git_diff', { file: 'f.txt' });
    expect(diff).toBe(
      `diff --git a/f.txt b/f.txt\nindex ${old}..${now} 100644\n--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n-one\n+ONE\n two\n \n`,
    );
    // Nothing staged: the staged diff is empty.
    expect(await suite.ok(repo, 'get_git_staged_diff', { file: 'f.txt' })).toBe('');
  });

  it('the staged diff is `diff --cached`, exactly, while the worktree differs again', async () => {
    const repo = await blankTailRepo();
    await put(repo, 'f.txt', 'ONE\ntwo\n\n');
    git(repo, 'add', 'f.txt');
    await put(repo, 'f.txt', 'ONE\ntwo\n\nthree\n');
    const staged = gitBytes(repo, 'diff', '--cached', '--no-color', '--no-ext-diff', '--', 'f.txt').toString();
    const worktree = gitBytes(repo, 'diff', '--no-color', '--no-ext-diff', '--', 'f.txt').toString();
    expect(staged.endsWith('+ONE\n two\n \n')).toBe(true);
    expect(worktree.endsWith(' two\n \n+three\n')).toBe(true);
    expect(await suite.ok(repo, 'get_git_staged_diff', { file: 'f.txt' })).toBe(staged);
    expect(await suite.ok(repo, 'get_git_diff', { file: 'f.txt' })).toBe(worktree);
  });

  it('"" for an unchanged file, an untracked file and a file that does not exist', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    await put(repo, 'new.txt', 'untracked\n');
    for (const file of ['a.txt', 'new.txt', 'missing.txt']) {
      expect(await suite.call(repo, 'get_git_diff', { file }).then(outcome)).toEqual({ ok: true, result: '' });
      expect(await suite.call(repo, 'get_git_staged_diff', { file }).then(outcome)).toEqual({ ok: true, result: '' });
    }
  });

  it('non-UTF-8 bytes arrive as U+FFFD, the rest exact', async () => {
    const repo = await suite.repo({ files: { 'latin.txt': 'cafe\n' }, commit: 'first' });
    await put(repo, 'latin.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])); // "café" in Latin-1
    const raw = gitBytes(repo, 'diff', '--no-color', '--no-ext-diff', '--', 'latin.txt');
    const diff = await suite.ok(repo, 'get_git_diff', { file: 'latin.txt' });
    expect(diff).toBe(lossy(raw));
    expect(diff).toContain('\n-cafe\n+caf\uFFFD\n');
  });

  it('odd file names are literal: `-n`, `*.txt`, `:/x`, spaces, unicode', async () => {
    const names = ['-n', '*.txt', ':/x', 'a b.txt', 'ünï.txt', 'x'];
    const repo = await suite.repo({ files: Object.fromEntries(names.map((n) => [n, `${n}\n`])), commit: 'first' });
    for (const name of names) await put(repo, name, `${name} changed\n`);
    for (const name of ['-n', '*.txt', ':/x', 'a b.txt', 'ünï.txt']) {
      const expected = gitBytes(repo, '--literal-pathspecs', 'diff', '--no-color', '--no-ext-diff', '--', name).toString();
      expect(expected).toContain(`\n+${name} changed\n`);
      // Only that one file: a glob or a magic pathspec would bring in others.
      expect(expected.match(/^diff --git/gm)).toHaveLength(1);
      expect(await suite.ok(repo, 'get_git_diff', { file: name })).toBe(expected);
    }
  });

  it('the `file` rule: empty, absolute, `..`, `a/../..`, `.`, `a/..`, `.git/config`, `x/.git/y`, NUL → Invalid file', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    for (const file of ['', '/etc/passwd', '..', 'a/../..', '.', 'a/..', '.git/config', 'x/.git/y', '.git', 'a\0b']) {
      for (const command of ['get_git_diff', 'get_git_staged_diff', 'get_git_head_file', 'git_show_index']) {
        expect({ command, file, ...outcome(await suite.call(repo, command, { file })) }).toEqual({ command, file, ok: false, error: 'Invalid file' });
      }
    }
  });

  it('outside a repo: git’s not-a-repository error; outside the workspace: refused', async () => {
    const plain = await suite.folder('plain-content');
    expect(await suite.call(plain, 'get_git_diff', { file: 'a.txt' }).then(outcome)).toEqual({ ok: false, error: NOT_A_REPO });
    expect(await suite.call(plain, 'get_git_head_file', { file: 'a.txt' }).then(outcome)).toEqual({ ok: false, error: NOT_A_REPO });
    expect(await suite.client.call('get_git_diff', { path: '../..', file: 'a.txt' }).then(outcome)).toEqual({
      ok: false,
      error: 'path is outside the workspace',
    });
  });
});

describe('get_git_head_file and git_show_index', () => {
  it('the HEAD version and the index version, edge whitespace and bad bytes kept', async () => {
    const text = '  \n\tindented first\nlast   \n\n\n';
    const repo = await suite.repo({ files: { 'e.txt': text }, commit: 'first' });
    await put(repo, 'e.txt', '\n staged \n');
    git(repo, 'add', 'e.txt');
    await put(repo, 'e.txt', 'worktree\n');
    expect(await suite.ok(repo, 'get_git_head_file', { file: 'e.txt' })).toBe(text);
    expect(await suite.ok(repo, 'git_show_index', { file: 'e.txt' })).toBe('\n staged \n');

    await put(repo, 'bin.txt', Buffer.from([0x20, 0xff, 0xfe, 0x41, 0x0a, 0x20]));
    git(repo, 'add', 'bin.txt');
    git(repo, 'commit', '-q', '-m', 'bytes');
    expect(await suite.ok(repo, 'get_git_head_file', { file: 'bin.txt' })).toBe(' \uFFFD\uFFFDA\n ');
    expect(await suite.ok(repo, 'git_show_index', { file: 'bin.txt' })).toBe(' \uFFFD\uFFFDA\n ');
  });

  it('head file: a repo without commits → git’s error; a path not in HEAD → git’s error', async () => {
    const empty = await suite.repo({ files: { 'a.txt': 'a\n' } });
    git(empty, 'add', 'a.txt');
    // Plain `show HEAD:F` (its `--` form only when the name is ambiguous, which would say "bad revision").
    expect(await suite.call(empty, 'get_git_head_file', { file: 'a.txt' }).then(outcome)).toEqual({
      ok: false,
      error: "fatal: invalid object name 'HEAD'.",
    });
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    expect(await suite.call(repo, 'get_git_head_file', { file: 'nope.txt' }).then(outcome)).toEqual({
      ok: false,
      error: "fatal: path 'nope.txt' does not exist in 'HEAD'",
    });
  });

  it('head file and show index: a worktree file literally named `HEAD:F` or `:F` is no ambiguity', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'committed\n' }, commit: 'first' });
    await put(repo, 'HEAD:a.txt', 'decoy\n');
    await put(repo, ':a.txt', 'decoy\n');
    expect(await suite.ok(repo, 'get_git_head_file', { file: 'a.txt' })).toBe('committed\n');
    expect(await suite.ok(repo, 'git_show_index', { file: 'a.txt' })).toBe('committed\n');
  });

  it('show index: any git failure is "" (not in the index, no commits, not a repo); literal names', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n', '-n': 'dash\n', '*.txt': 'star\n' }, commit: 'first' });
    await put(repo, 'untracked.txt', 'u\n');
    expect(await suite.call(repo, 'git_show_index', { file: 'untracked.txt' }).then(outcome)).toEqual({ ok: true, result: '' });
    expect(await suite.call(repo, 'git_show_index', { file: 'gone/x' }).then(outcome)).toEqual({ ok: true, result: '' });
    expect(await suite.ok(repo, 'git_show_index', { file: '-n' })).toBe('dash\n');
    expect(await suite.ok(repo, 'git_show_index', { file: '*.txt' })).toBe('star\n');
    const plain = await suite.folder('plain-index');
    expect(await suite.call(plain, 'git_show_index', { file: 'a.txt' }).then(outcome)).toEqual({ ok: true, result: '' });
  });
});

describe('git_commit_diff', () => {
  it('`show` of a commit exactly, by full or short hash, trimmed', async () => {
    const repo = await suite.repo({ files: { 'f.txt': 'one\ntwo\n\n' }, commit: 'first' });
    await put(repo, 'f.txt', 'ONE\ntwo\n\n');
    git(repo, 'commit', '-q', '-am', 'second');
    const hash = git(repo, 'rev-parse', 'HEAD');
    const shown = gitBytes(repo, 'show', '--no-color', '--no-ext-diff', hash).toString();
    expect(shown.startsWith(`commit ${hash}\nAuthor: Ada Lovelace <ada@example.com>\n`)).toBe(true);
    expect(shown.endsWith('-one\n+ONE\n two\n \n')).toBe(true);
    expect(await suite.ok(repo, 'git_commit_diff', { commit: hash })).toBe(shown);
    expect(await suite.ok(repo, 'git_commit_diff', { commit: `  ${hash.slice(0, 7)}\n` })).toBe(shown);
  });

  it('not a commit → Invalid commit: hex naming nothing, a blob’s hash, abc, -x, HEAD, HEAD~1, empty', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    const blob = git(repo, 'rev-parse', 'HEAD:a.txt');
    const bad = ['deadbeefdeadbeef', blob, 'abc', '-x', 'HEAD', 'HEAD~1', '', '--output=/tmp/x', 'a'.repeat(65)];
    for (const commit of bad) {
      expect({ commit, ...outcome(await suite.call(repo, 'git_commit_diff', { commit })) }).toEqual({ commit, ok: false, error: 'Invalid commit' });
    }
    expect(await suite.call(repo, 'git_commit_diff', {}).then(outcome)).toMatchObject({ ok: false, error: expect.stringContaining("invalid arg 'commit'") });
  });
});
