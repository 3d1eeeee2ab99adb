/**
 * The `/ws` branch commands (docs/noide-protocol.md#git-commands): git_branch_list (no `origin/HEAD`, the unborn branch, detached `HEAD`),
 * git_checkout_branch with every tracking rule and the `--` fix, git_merge (clean, conflicting — ok either way —
 * resolved both ways), git_merge_abort, and the `name` / `fromRef` rules before git runs. Over a real socket, real
 * repos with a local bare `origin`; the state checked with git itself.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, gitTry, openGitSuite, outcome, porcelain, put, read, repoState, type GitSuite } from './git-fixture.ts';

let suite: GitSuite;
beforeAll(async () => {
  suite = await openGitSuite();
});
afterAll(() => suite.close());

const BAD_NAMES = [
  '',
  '   ',
  '-b',
  '--orphan',
  '-',
  'a..b',
  'a b',
  'a\u0001',
  'a\u007f',
  'x.lock',
  'a/x.lock',
  '@{u}',
  'a@{1}',
  '@',
  'a//b',
  '/a',
  'a/',
  'a.',
  '.a',
  'a/.b',
  'a~1',
  'a^',
  'a:b',
  'a?',
  'a*',
  'a[b',
  'a\\b',
];

/**
 * Built once in beforeAll, copied per test (see GitSuite.copy). `originTemplate`: a repo on main (one commit,
 * `a.txt`) tracking a bare `origin` that also has a branch `feature` (adds f.txt); no local `feature`. No test
 * writes to the shared origin. `mergeTemplate`: main and `other` both change f.txt (a conflict); `side` adds s.txt.
 */
let originTemplate: string;
let mergeTemplate: string;
beforeAll(async () => {
  const origin = join(await suite.folder('remotes'), 'origin.git');
  git(suite.root, 'init', '-q', '--bare', '-b', 'main', origin);
  originTemplate = await suite.repo({ name: 'templates/origin', files: { 'a.txt': 'a\n' }, commit: 'first' });
  git(originTemplate, 'remote', 'add', 'origin', origin);
  git(originTemplate, 'push', '-q', '-u', 'origin', 'main');
  git(originTemplate, 'checkout', '-q', '-b', 'feature');
  await put(originTemplate, 'f.txt', 'f\n');
  git(originTemplate, 'add', 'f.txt');
  git(originTemplate, 'commit', '-q', '-m', 'feature');
  git(originTemplate, 'push', '-q', 'origin', 'feature');
  git(originTemplate, 'checkout', '-q', 'main');
  git(originTemplate, 'branch', '-q', '-D', 'feature');

  const repo = await suite.repo({ name: 'templates/merge', files: { 'f.txt': 'base\n' }, commit: 'base' });
  git(repo, 'checkout', '-q', '-b', 'other');
  await put(repo, 'f.txt', 'theirs\n');
  git(repo, 'commit', '-q', '-am', 'theirs');
  git(repo, 'checkout', '-q', '-b', 'side', 'main');
  await put(repo, 's.txt', 's\n');
  git(repo, 'add', 's.txt');
  git(repo, 'commit', '-q', '-m', 'side');
  git(repo, 'checkout', '-q', 'main');
  await put(repo, 'f.txt', 'ours\n');
  git(repo, 'commit', '-q', '-am', 'ours');
  mergeTemplate = repo;
});

const withOrigin = () => ({ repo: suite.copy(originTemplate) });
const branchy = () => suite.copy(mergeTemplate);

const upstreamOf = (repo: string, branch: string) => gitTry(repo, 'rev-parse', '--abbrev-ref', `${branch}@{upstream}`).stdout.trim();
const current = (repo: string) => git(repo, 'symbolic-ref', '--short', 'HEAD');

describe('git_branch_list', () => {
  it('a repo without commits: the unborn branch, no branches, no remotes', async () => {
    const repo = await suite.repo();
    expect(await suite.ok(repo, 'git_branch_list')).toEqual({ current: 'main', branches: [], remotes: [] });
  });

  it('locals and remotes by short name, never origin/HEAD', async () => {
    const { repo } = withOrigin();
    git(repo, 'branch', 'zeta');
    git(repo, 'branch', 'alpha/one');
    git(repo, 'remote', 'set-head', 'origin', 'main');
    expect(git(repo, 'for-each-ref', '--format=%(refname)', 'refs/remotes')).toBe(
      'refs/remotes/origin/HEAD\nrefs/remotes/origin/feature\nrefs/remotes/origin/main',
    );
    expect(await suite.ok(repo, 'git_branch_list')).toEqual({
      current: 'main',
      branches: ['alpha/one', 'main', 'zeta'],
      remotes: ['origin/feature', 'origin/main'],
    });
  });

  it('detached: current is `HEAD`', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    git(repo, 'checkout', '-q', '--detach');
    expect(await suite.ok(repo, 'git_branch_list')).toEqual({ current: 'HEAD', branches: ['main'], remotes: [] });
  });

  it('a plain folder: git’s not-a-repository error', async () => {
    const plain = await suite.folder('plain-branches');
    expect(await suite.call(plain, 'git_branch_list').then(outcome)).toEqual({
      ok: false,
      error: 'fatal: not a git repository (or any of the parent directories): .git',
    });
  });
});

describe('git_checkout_branch', () => {
  it('create: `checkout -b N`, from the current commit', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    expect(await suite.ok(repo, 'git_checkout_branch', { name: 'topic/new', create: true })).toBe("Switched to a new branch 'topic/new'");
    expect(current(repo)).toBe('topic/new');
    expect(git(repo, 'rev-parse', 'topic/new')).toBe(git(repo, 'rev-parse', 'main'));
    // A name taken: git's error.
    expect(await suite.call(repo, 'git_checkout_branch', { name: 'main', create: true }).then(outcome)).toEqual({
      ok: false,
      error: "fatal: a branch named 'main' already exists",
    });
    expect(current(repo)).toBe('topic/new');
  });

  it('an existing local branch: switched; its upstream line when it has one', async () => {
    const { repo } = withOrigin();
    git(repo, 'branch', 'other');
    expect(await suite.ok(repo, 'git_checkout_branch', { name: 'other' })).toBe("Switched to branch 'other'");
    expect(await suite.ok(repo, 'git_checkout_branch', { name: 'main', create: false })).toBe(
      "Your branch is up to date with 'origin/main'.\nSwitched to branch 'main'",
    );
    expect(current(repo)).toBe('main');
  });

  it('`origin/feature` → a local `feature` tracking it', async () => {
    const { repo } = withOrigin();
    expect(await suite.ok(repo, 'git_checkout_branch', { name: 'origin/feature' })).toBe(
      "branch 'feature' set up to track 'origin/feature'.\nSwitched to a new branch 'feature'",
    );
    expect(current(repo)).toBe('feature');
    expect(upstreamOf(repo, 'feature')).toBe('origin/feature');
    expect(read(repo, 'f.txt')).toBe('f\n');
  });

  it('plain `feature` that exists only on origin → a local branch tracking origin/feature', async () => {
    const { repo } = withOrigin();
    expect(await suite.ok(repo, 'git_checkout_branch', { name: 'feature' })).toBe(
      "branch 'feature' set up to track 'origin/feature'.\nSwitched to a new branch 'feature'",
    );
    expect(current(repo)).toBe('feature');
    expect(upstreamOf(repo, 'feature')).toBe('origin/feature');
  });

  it('a name that is a file and no branch does not revert that file: the checkout’s error', async () => {
    const repo = await suite.repo({ files: { notes: 'committed\n', 'a.txt': 'a\n' }, commit: 'first' });
    await put(repo, 'notes', 'my unsaved work\n');
    const before = repoState(repo);
    expect(await suite.call(repo, 'git_checkout_branch', { name: 'notes' }).then(outcome)).toEqual({
      ok: false,
      error: 'fatal: invalid reference: notes',
    });
    expect(read(repo, 'notes')).toBe('my unsaved work\n');
    expect(repoState(repo)).toEqual(before);
  });

  it('a name that is both a branch and a file: the branch is checked out, the file’s change kept', async () => {
    const repo = await suite.repo({ files: { notes: 'committed\n' }, commit: 'first' });
    git(repo, 'branch', 'notes');
    await put(repo, 'notes', 'my unsaved work\n');
    expect(await suite.ok(repo, 'git_checkout_branch', { name: 'notes' })).toBe("M\tnotes\nSwitched to branch 'notes'");
    expect(current(repo)).toBe('notes');
    expect(read(repo, 'notes')).toBe('my unsaved work\n');
  });

  it('a remote-looking name that is no remote branch: the checkout’s error, nothing made', async () => {
    const { repo } = withOrigin();
    const before = repoState(repo);
    const reply = outcome(await suite.call(repo, 'git_checkout_branch', { name: 'origin/nope' }));
    expect(reply).toEqual({ ok: false, error: 'fatal: invalid reference: origin/nope' });
    expect(repoState(repo)).toEqual(before);
    expect(git(repo, 'branch', '--format=%(refname:short)')).toBe('main');
  });

  it('bad names → Invalid branch name before git runs, nothing changed (create or not)', async () => {
    const { repo } = withOrigin();
    const before = repoState(repo);
    const branches = git(repo, 'for-each-ref', '--format=%(refname)');
    for (const name of BAD_NAMES) {
      for (const create of [true, false]) {
        const reply = outcome(await suite.call(repo, 'git_checkout_branch', { name, create }));
        expect({ name, create, ...reply }).toEqual({ name, create, ok: false, error: 'Invalid branch name' });
      }
    }
    expect(repoState(repo)).toEqual(before);
    expect(git(repo, 'for-each-ref', '--format=%(refname)')).toBe(branches);
    expect(current(repo)).toBe('main');
  });

  it('a name with surrounding spaces is trimmed', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    expect(await suite.ok(repo, 'git_checkout_branch', { name: '  spaced  ', create: true })).toBe("Switched to a new branch 'spaced'");
    expect(current(repo)).toBe('spaced');
  });
});

describe('git_merge and git_merge_abort', () => {
  it('a clean merge: a merge commit, git’s text', async () => {
    const repo = branchy();
    const head = git(repo, 'rev-parse', 'HEAD');
    expect(await suite.ok(repo, 'git_merge', { fromRef: 'side' })).toBe(
      "Merge made by the 'ort' strategy.\n s.txt | 1 +\n 1 file changed, 1 insertion(+)\n create mode 100644 s.txt",
    );
    expect(git(repo, 'rev-parse', 'HEAD^1')).toBe(head);
    expect(git(repo, 'rev-parse', 'HEAD^2')).toBe(git(repo, 'rev-parse', 'side'));
    expect(git(repo, 'log', '-1', '--format=%s')).toBe("Merge branch 'side'");
    expect(porcelain(repo)).toEqual([]);
  });

  it('a fast-forward', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    const from = git(repo, 'rev-parse', '--short', 'HEAD');
    git(repo, 'checkout', '-q', '-b', 'ahead');
    await put(repo, 'a.txt', 'a2\n');
    git(repo, 'commit', '-q', '-am', 'ahead');
    const to = git(repo, 'rev-parse', '--short', 'HEAD');
    git(repo, 'checkout', '-q', 'main');
    expect(await suite.ok(repo, 'git_merge', { fromRef: 'ahead' })).toBe(
      `Updating ${from}..${to}\nFast-forward\n a.txt | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)`,
    );
    expect(git(repo, 'rev-parse', 'main')).toBe(git(repo, 'rev-parse', 'ahead'));
  });

  const CONFLICT_TEXT =
    'Auto-merging f.txt\nCONFLICT (content): Merge conflict in f.txt\nAutomatic merge failed; fix conflicts and then commit the result.';

  it('a conflict is ok with the CONFLICT text; the path is unmerged; resolved with `ours`', async () => {
    const repo = branchy();
    expect(await suite.call(repo, 'git_merge', { fromRef: 'other' }).then(outcome)).toEqual({ ok: true, result: CONFLICT_TEXT });
    const status = (await suite.ok(repo, 'get_git_status')) as { unmerged: string[]; staged: string[] };
    expect(status.unmerged).toEqual(['f.txt']);
    expect(status.staged).toEqual([]);
    expect(read(repo, 'f.txt')).toBe('<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> other\n');

    expect(await suite.ok(repo, 'git_resolve_conflict', { file: 'f.txt', side: 'ours' })).toBe('');
    expect(read(repo, 'f.txt')).toBe('ours\n');
    const after = (await suite.ok(repo, 'get_git_status')) as { unmerged: string[] };
    expect(after.unmerged).toEqual([]);
    expect(git(repo, 'ls-files', '-u')).toBe('');
    // Still a merge in progress, to be committed.
    expect(gitTry(repo, 'rev-parse', '--verify', '--quiet', 'MERGE_HEAD').stdout.trim()).toBe(git(repo, 'rev-parse', 'other'));
  });

  it('a conflict resolved with `theirs`, then committed as the merge', async () => {
    const repo = branchy();
    expect(await suite.call(repo, 'git_merge', { fromRef: 'other' }).then(outcome)).toEqual({ ok: true, result: CONFLICT_TEXT });
    expect(await suite.ok(repo, 'git_resolve_conflict', { file: 'f.txt', side: 'theirs' })).toBe('');
    expect(read(repo, 'f.txt')).toBe('theirs\n');
    expect(await suite.ok(repo, 'get_git_status')).toMatchObject({ unmerged: [], staged: ['f.txt'], stagedDetails: { 'f.txt': 'M' } });
    await suite.ok(repo, 'git_commit', { message: 'merged' });
    expect(git(repo, 'rev-parse', 'HEAD^2')).toBe(git(repo, 'rev-parse', 'other'));
    expect(git(repo, 'show', 'HEAD:f.txt')).toBe('theirs');
  });

  it('merge_abort restores the state before the merge', async () => {
    const repo = branchy();
    await put(repo, 'untracked.txt', 'keep me\n');
    const before = repoState(repo);
    expect((await suite.call(repo, 'git_merge', { fromRef: 'other' })).ok).toBe(true);
    expect(porcelain(repo)).toEqual(['UU f.txt', '?? untracked.txt']);
    expect(await suite.call(repo, 'git_merge_abort').then(outcome)).toEqual({ ok: true, result: '' });
    expect(repoState(repo)).toEqual(before);
    expect(gitTry(repo, 'rev-parse', '--verify', '--quiet', 'MERGE_HEAD').code).toBe(1);
  });

  it('merge_abort with no merge → git’s error', async () => {
    const repo = branchy();
    expect(await suite.call(repo, 'git_merge_abort').then(outcome)).toEqual({
      ok: false,
      error: 'fatal: There is no merge to abort (MERGE_HEAD missing).',
    });
  });

  it('a ref that names nothing: ok with git’s text (exit status ignored), nothing changed', async () => {
    const repo = branchy();
    const before = repoState(repo);
    expect(await suite.call(repo, 'git_merge', { fromRef: 'nope' }).then(outcome)).toEqual({ ok: true, result: 'merge: nope - not something we can merge' });
    expect(repoState(repo)).toEqual(before);
  });

  it('bad fromRef → Invalid ref before git runs, nothing changed', async () => {
    const repo = branchy();
    const before = repoState(repo);
    for (const fromRef of [...BAD_NAMES, '--abort', '-Xtheirs', 'HEAD~1', 'other^']) {
      expect({ fromRef, ...outcome(await suite.call(repo, 'git_merge', { fromRef })) }).toEqual({ fromRef, ok: false, error: 'Invalid ref' });
    }
    expect(repoState(repo)).toEqual(before);
  });
});
