/**
 * The `/ws` git commands that write history (docs/noide-protocol.md#git-commands): git_commit (and amend), git_undo_commit, git_revert,
 * git_stash, git_stash_pop — git's text by the text rule, the message as one untrimmed argument, the `commit` rule
 * before git runs, and the edge cases of a repo without commits. Over a real socket, real repos; the resulting
 * history checked with git itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, gitBytes, openGitSuite, outcome, porcelain, put, read, repoState, tree, type GitSuite } from './git-fixture.ts';

let suite: GitSuite;
beforeAll(async () => {
  suite = await openGitSuite();
});
afterAll(() => suite.close());

const short = (repo: string, rev = 'HEAD') => git(repo, 'rev-parse', '--short', rev);
const fullMessage = (repo: string, rev = 'HEAD') => gitBytes(repo, 'log', '-1', '--format=%B', rev).toString();

describe('git_commit', () => {
  it('commits the index with git’s text', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    await put(repo, 'b.txt', 'b\n');
    git(repo, 'add', 'b.txt');
    const parent = git(repo, 'rev-parse', 'HEAD');
    const text = await suite.ok(repo, 'git_commit', { message: 'second' });
    expect(text).toBe(`[main ${short(repo)}] second\n 1 file changed, 1 insertion(+)\n create mode 100644 b.txt`);
    expect(git(repo, 'rev-parse', 'HEAD~1')).toBe(parent);
    expect(git(repo, 'log', '-1', '--format=%an <%ae> %at')).toBe('Ada Lovelace <ada@example.com> 1700000000');
    expect(porcelain(repo)).toEqual([]);
  });

  it('the message is one untrimmed argument: leading spaces, a leading `-`, newlines', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    await put(repo, 'a.txt', 'a2\n');
    git(repo, 'add', 'a.txt');
    const message = '  - dash first\n\nbody line\nsecond body line';
    const text = await suite.ok(repo, 'git_commit', { message });
    expect(text).toBe(`[main ${short(repo)}]   - dash first\n 1 file changed, 1 insertion(+), 1 deletion(-)`);
    // git's own cleanup (trailing whitespace) applies; leading spaces and every line are there.
    expect(fullMessage(repo)).toBe('  - dash first\n\nbody line\nsecond body line\n\n');

    for (const dashed of ['--amend', '-n', '--allow-empty']) {
      await put(repo, 'a.txt', `${dashed}\n`);
      git(repo, 'add', 'a.txt');
      const before = git(repo, 'rev-parse', 'HEAD');
      expect(await suite.ok(repo, 'git_commit', { message: dashed })).toBe(`[main ${short(repo)}] ${dashed}\n 1 file changed, 1 insertion(+), 1 deletion(-)`);
      expect(git(repo, 'rev-parse', 'HEAD~1')).toBe(before); // a new commit, not an amend
      expect(fullMessage(repo)).toBe(`${dashed}\n\n`);
    }
  });

  it('nothing staged → error with git’s text, nothing changed', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    const before = repoState(repo);
    expect(await suite.call(repo, 'git_commit', { message: 'empty' }).then(outcome)).toEqual({
      ok: false,
      error: 'On branch main\nnothing to commit, working tree clean',
    });
    expect(repoState(repo)).toEqual(before);
  });

  it('the first commit of a repo', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' } });
    git(repo, 'add', 'a.txt');
    expect(await suite.ok(repo, 'git_commit', { message: 'root' })).toBe(
      `[main (root-commit) ${short(repo)}] root\n 1 file changed, 1 insertion(+)\n create mode 100644 a.txt`,
    );
  });

  it('amend with a message: HEAD replaced, same parent, the index folded in', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    await put(repo, 'a.txt', 'a2\n');
    git(repo, 'commit', '-q', '-am', 'second');
    const parent = git(repo, 'rev-parse', 'HEAD~1');
    const old = git(repo, 'rev-parse', 'HEAD');
    await put(repo, 'b.txt', 'b\n');
    git(repo, 'add', 'b.txt');
    const text = await suite.ok(repo, 'git_commit', { message: 'second, amended', amend: true });
    expect(text).toBe(
      `[main ${short(repo)}] second, amended\n Date: Tue Nov 14 22:13:20 2023 +0000\n 2 files changed, 2 insertions(+), 1 deletion(-)\n create mode 100644 b.txt`,
    );
    expect(git(repo, 'rev-parse', 'HEAD~1')).toBe(parent);
    expect(git(repo, 'rev-parse', 'HEAD')).not.toBe(old);
    expect(fullMessage(repo)).toBe('second, amended\n\n');
    expect(git(repo, 'show', '--name-only', '--format=', 'HEAD')).toBe('a.txt\nb.txt');
  });

  it('amend with a blank message keeps the old one (`--no-edit`)', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    await put(repo, 'a.txt', 'a2\n');
    git(repo, 'commit', '-q', '-am', 'keep me\n\nwith a body');
    for (const message of ['', '   ', '\n\t']) {
      await put(repo, 'a.txt', `a ${JSON.stringify(message)}\n`);
      git(repo, 'add', 'a.txt');
      const text = await suite.ok(repo, 'git_commit', { message, amend: true });
      expect(text).toBe(`[main ${short(repo)}] keep me\n Date: Tue Nov 14 22:13:20 2023 +0000\n 1 file changed, 1 insertion(+), 1 deletion(-)`);
      expect(fullMessage(repo)).toBe('keep me\n\nwith a body\n\n');
      expect(git(repo, 'rev-list', '--count', 'HEAD')).toBe('2');
    }
  });

  it('amend without commits → git’s error', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' } });
    git(repo, 'add', 'a.txt');
    expect(await suite.call(repo, 'git_commit', { message: 'x', amend: true }).then(outcome)).toEqual({
      ok: false,
      error: 'fatal: You have nothing to amend.',
    });
    expect(porcelain(repo)).toEqual(['A  a.txt']);
  });

  it('a mistyped amend counts as absent: a new commit', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    await put(repo, 'a.txt', 'a2\n');
    git(repo, 'add', 'a.txt');
    expect(await suite.ok(repo, 'git_commit', { message: 'second', amend: 'true' })).toBe(
      `[main ${short(repo)}] second\n 1 file changed, 1 insertion(+), 1 deletion(-)`,
    );
    expect(git(repo, 'rev-list', '--count', 'HEAD')).toBe('2');
  });
});

describe('git_undo_commit', () => {
  it('HEAD goes to HEAD~1, the changes stay staged ("")', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    const first = git(repo, 'rev-parse', 'HEAD');
    await put(repo, 'a.txt', 'a2\n');
    await put(repo, 'b.txt', 'b\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'second');
    expect(await suite.call(repo, 'git_undo_commit').then(outcome)).toEqual({ ok: true, result: '' });
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(first);
    expect(porcelain(repo)).toEqual(['M  a.txt', 'A  b.txt']);
    expect(read(repo, 'a.txt')).toBe('a2\n');
  });

  it('with one commit or none → git’s error, nothing changed', async () => {
    const error =
      "fatal: ambiguous argument 'HEAD~1': unknown revision or path not in the working tree.\n" +
      "Use '--' to separate paths from revisions, like this:\n" +
      "'git <command> [<revision>...] -- [<file>...]'";
    const one = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    const none = await suite.repo({ files: { 'a.txt': 'a\n' } });
    git(none, 'add', 'a.txt');
    for (const repo of [one, none]) {
      const before = repoState(repo);
      expect(await suite.call(repo, 'git_undo_commit').then(outcome)).toEqual({ ok: false, error });
      expect(repoState(repo)).toEqual(before);
    }
  });
});

describe('git_revert', () => {
  it('reverts a commit by hash with a new commit', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    await put(repo, 'a.txt', 'a2\n');
    git(repo, 'commit', '-q', '-am', 'second');
    const second = git(repo, 'rev-parse', 'HEAD');
    const text = await suite.ok(repo, 'git_revert', { commit: ` ${second.slice(0, 8)} ` });
    expect(text).toBe(`[main ${short(repo)}] Revert "second"\n Date: Tue Nov 14 22:13:20 2023 +0000\n 1 file changed, 1 insertion(+), 1 deletion(-)`);
    expect(git(repo, 'rev-parse', 'HEAD~1')).toBe(second);
    expect(read(repo, 'a.txt')).toBe('a\n');
    expect(fullMessage(repo)).toBe(`Revert "second"\n\nThis reverts commit ${second}.\n\n`);
  });

  it('Invalid commit before git runs: options, refs, hex naming nothing', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    await put(repo, 'a.txt', 'a2\n');
    git(repo, 'commit', '-q', '-am', 'second');
    const before = repoState(repo);
    for (const commit of ['--abort', '--continue', 'HEAD', 'main', 'abc', 'deadbeefdeadbeef', git(repo, 'rev-parse', 'HEAD:a.txt'), '']) {
      expect({ commit, ...outcome(await suite.call(repo, 'git_revert', { commit })) }).toEqual({ commit, ok: false, error: 'Invalid commit' });
    }
    expect(repoState(repo)).toEqual(before);
  });
});

describe('git_stash and git_stash_pop', () => {
  it('stashes tracked changes and untracked files; pop brings both back; the stash list follows', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    await put(repo, 'a.txt', 'a2\n');
    await put(repo, 'new.txt', 'untracked\n');
    await put(repo, 'dir/deep.txt', 'deep\n');
    expect(await suite.ok(repo, 'git_stash')).toBe('Saved working directory and index state On main: WIP from NoIDE');
    expect(porcelain(repo)).toEqual([]);
    expect(tree(repo)).toEqual({ 'a.txt': 'a\n' });
    expect(await suite.ok(repo, 'git_stash_list')).toEqual([{ ref: 'stash@{0}', message: 'On main: WIP from NoIDE', time: 1700000000 }]);

    const stash = git(repo, 'rev-parse', 'stash@{0}');
    expect(await suite.ok(repo, 'git_stash_pop')).toBe(
      'On branch main\n' +
        'Changes not staged for commit:\n' +
        '  (use "git add <file>..." to update what will be committed)\n' +
        '  (use "git restore <file>..." to discard changes in working directory)\n' +
        '\tmodified:   a.txt\n\n' +
        'Untracked files:\n' +
        '  (use "git add <file>..." to include in what will be committed)\n' +
        '\tdir/\n\tnew.txt\n\n' +
        'no changes added to commit (use "git add" and/or "git commit -a")\n' +
        `Dropped refs/stash@{0} (${stash})`,
    );
    expect(tree(repo)).toEqual({ 'a.txt': 'a2\n', 'dir/': '/', 'dir/deep.txt': 'deep\n', 'new.txt': 'untracked\n' });
    expect(porcelain(repo)).toEqual([' M a.txt', '?? dir/deep.txt', '?? new.txt']);
    expect(await suite.ok(repo, 'git_stash_list')).toEqual([]);
  });

  it('nothing to stash is ok (`No local changes to save`), no stash made', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    expect(await suite.call(repo, 'git_stash').then(outcome)).toEqual({ ok: true, result: 'No local changes to save' });
    expect(await suite.ok(repo, 'git_stash_list')).toEqual([]);
  });

  it('pop with no stash → `No stash entries found.`, nothing changed', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    await put(repo, 'a.txt', 'dirty\n');
    const before = repoState(repo);
    expect(await suite.call(repo, 'git_stash_pop').then(outcome)).toEqual({ ok: false, error: 'No stash entries found.' });
    expect(repoState(repo)).toEqual(before);
  });

  it('stash without commits → git’s error, the files stay', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n', 'u.txt': 'u\n' } });
    git(repo, 'add', 'a.txt');
    const before = repoState(repo);
    expect(await suite.call(repo, 'git_stash').then(outcome)).toEqual({ ok: false, error: 'You do not have the initial commit yet' });
    expect(repoState(repo)).toEqual(before);
  });

  it('two stashes: newest first in the list; pop takes the newest', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    await put(repo, 'a.txt', 'one\n');
    await suite.ok(repo, 'git_stash');
    await put(repo, 'a.txt', 'two\n');
    await suite.ok(repo, 'git_stash');
    expect(await suite.ok(repo, 'git_stash_list')).toEqual([
      { ref: 'stash@{0}', message: 'On main: WIP from NoIDE', time: 1700000000 },
      { ref: 'stash@{1}', message: 'On main: WIP from NoIDE', time: 1700000000 },
    ]);
    await suite.ok(repo, 'git_stash_pop');
    expect(read(repo, 'a.txt')).toBe('two\n');
    expect(await suite.ok(repo, 'git_stash_list')).toEqual([{ ref: 'stash@{0}', message: 'On main: WIP from NoIDE', time: 1700000000 }]);
  });
});
