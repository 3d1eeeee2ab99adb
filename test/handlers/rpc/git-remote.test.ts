/**
 * The `/ws` git commands that talk to a remote (docs/noide-protocol.md#git-commands): git_push, git_fetch (`--all --prune`), git_pull,
 * with no flags of our own — against a local bare repository set as `origin` by a plain path (the clone URL rules are
 * for clone only). A second clone plays the other developer. Over a real socket; the refs checked with git itself.
 */
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitHttpServer } from '../../support/git-http-server.ts';
import { git, gitTry, openGitSuite, outcome, porcelain, put, read, repoState, type GitSuite } from './git-fixture.ts';

let suite: GitSuite;
beforeAll(async () => {
  suite = await openGitSuite();
});
afterAll(() => suite.close());

let remotes = 0;

/**
 * A bare `origin` (outside any repo folder the suite hands out), a repo with one commit pushed to it with
 * upstream, and a second clone of it. Returns the three paths.
 */
async function withOrigin(): Promise<{ origin: string; repo: string; other: string; url: string }> {
  const name = `remote${++remotes}`;
  const origin = join(await suite.folder('remotes'), `${name}.git`);
  git(suite.root, 'init', '-q', '--bare', '-b', 'main', origin);
  const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
  git(repo, 'remote', 'add', 'origin', origin);
  git(repo, 'push', '-q', '-u', 'origin', 'main');
  const other = join(suite.root, 'remotes', `${name}-other`);
  git(suite.root, 'clone', '-q', origin, other);
  // git shows a local remote without its `.git`: "From /…/remoteN".
  return { origin, repo, other, url: origin.replace(/\.git$/, '') };
}

describe('git_push', () => {
  it('pushes the branch to its upstream, git’s text', async () => {
    const { origin, repo } = await withOrigin();
    const before = short(repo);
    await put(repo, 'a.txt', 'a2\n');
    git(repo, 'commit', '-q', '-am', 'second');
    const text = await suite.ok(repo, 'git_push');
    expect(text).toBe(`To ${origin}\n   ${before}..${short(repo)}  main -> main`);
    expect(git(origin, 'rev-parse', 'main')).toBe(git(repo, 'rev-parse', 'HEAD'));
    expect(git(repo, 'rev-parse', 'origin/main')).toBe(git(repo, 'rev-parse', 'HEAD'));
  });

  it('nothing new: ok with `Everything up-to-date`', async () => {
    const { repo } = await withOrigin();
    expect(await suite.call(repo, 'git_push').then(outcome)).toEqual({ ok: true, result: 'Everything up-to-date' });
  });

  it('without a remote → git’s error, nothing changed', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    const before = repoState(repo);
    expect(await suite.call(repo, 'git_push').then(outcome)).toEqual({
      ok: false,
      error:
        'fatal: No configured push destination.\n' +
        'Either specify the URL from the command-line or configure a remote repository using\n\n' +
        '    git remote add <name> <url>\n\n' +
        'and then push using the remote name\n\n' +
        '    git push <name>',
    });
    expect(repoState(repo)).toEqual(before);
  });

  it('a branch without upstream: git’s error (config decides, no flags added), the remote unchanged', async () => {
    const { origin, repo } = await withOrigin();
    git(repo, 'checkout', '-q', '-b', 'newb');
    const reply = outcome(await suite.call(repo, 'git_push'));
    expect(reply).toEqual({
      ok: false,
      error:
        'fatal: The current branch newb has no upstream branch.\n' +
        'To push the current branch and set the remote as upstream, use\n\n' +
        '    git push --set-upstream origin newb\n\n' +
        'To have this happen automatically for branches without a tracking\n' +
        "upstream, see 'push.autoSetupRemote' in 'git help config'.",
    });
    expect(gitTry(origin, 'rev-parse', '--verify', '--quiet', 'refs/heads/newb').code).toBe(1);
  });
});

describe('git_fetch', () => {
  it('`--all --prune`: new branches arrive, a branch deleted on the remote disappears from branch_list', async () => {
    const { repo, other, url } = await withOrigin();
    const main0 = short(repo);
    git(other, 'checkout', '-q', '-b', 'feature');
    await put(other, 'f.txt', 'f\n');
    git(other, 'add', 'f.txt');
    git(other, 'commit', '-q', '-m', 'feature');
    git(other, 'push', '-q', 'origin', 'feature');
    git(other, 'checkout', '-q', 'main');
    await put(other, 'o.txt', 'o\n');
    git(other, 'add', 'o.txt');
    git(other, 'commit', '-q', '-m', 'other');
    git(other, 'push', '-q', 'origin', 'main');
    const main1 = short(other);

    expect(await suite.ok(repo, 'git_fetch')).toBe(
      `From ${url}\n   ${main0}..${main1}  main       -> origin/main\n * [new branch]      feature    -> origin/feature`,
    );
    expect(await suite.ok(repo, 'git_branch_list')).toEqual({ current: 'main', branches: ['main'], remotes: ['origin/feature', 'origin/main'] });
    // Fetch only: the local branch has not moved.
    expect(short(repo)).toBe(main0);
    expect(porcelain(repo)).toEqual([]);

    git(other, 'push', '-q', 'origin', '--delete', 'feature');
    expect(await suite.ok(repo, 'git_fetch')).toBe(`From ${url}\n - [deleted]         (none)     -> origin/feature`);
    expect(await suite.ok(repo, 'git_branch_list')).toEqual({ current: 'main', branches: ['main'], remotes: ['origin/main'] });
  });

  it('without any remote: ok and "" (there is nothing to fetch)', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    expect(await suite.call(repo, 'git_fetch').then(outcome)).toEqual({ ok: true, result: '' });
  });
});

describe('git_fetch and git_pull over smart HTTP (git http-backend on loopback)', () => {
  it('fetches and pulls from an http origin; one that asks for credentials fails at once, no prompt, nothing moved', async () => {
    const { origin, repo, other } = await withOrigin();
    const http = await startGitHttpServer({ projectRoot: dirname(origin) });
    const auth = await startGitHttpServer({ projectRoot: dirname(origin), mode: 'auth' });
    try {
      git(repo, 'remote', 'set-url', 'origin', `${http.url}/${basename(origin)}`);
      await put(other, 'o.txt', 'o\n');
      git(other, 'add', 'o.txt');
      git(other, 'commit', '-q', '-m', 'other');
      git(other, 'push', '-q');
      expect(await suite.call(repo, 'git_fetch').then(outcome)).toMatchObject({ ok: true });
      expect(git(repo, 'rev-parse', 'origin/main')).toBe(git(other, 'rev-parse', 'HEAD'));
      expect(await suite.call(repo, 'git_pull').then(outcome)).toMatchObject({ ok: true });
      expect(git(repo, 'rev-parse', 'HEAD')).toBe(git(other, 'rev-parse', 'HEAD'));
      expect(http.requests).toBeGreaterThan(0);

      git(repo, 'remote', 'set-url', 'origin', `${auth.url}/${basename(origin)}`);
      const before = repoState(repo);
      const started = Date.now();
      const fetched = outcome(await suite.call(repo, 'git_fetch'));
      expect(Date.now() - started).toBeLessThan(5000);
      expect(fetched).toEqual({ ok: false, error: expect.stringContaining('terminal prompts disabled') });
      expect(repoState(repo)).toEqual(before);
    } finally {
      await http.close();
      await auth.close();
    }
  });
});

describe('git_pull', () => {
  it('fast-forwards to the upstream, git’s text (stdout then stderr)', async () => {
    const { repo, other, url } = await withOrigin();
    const before = short(repo);
    await put(other, 'o.txt', 'o\n');
    git(other, 'add', 'o.txt');
    git(other, 'commit', '-q', '-m', 'other');
    git(other, 'push', '-q');
    const after = short(other);
    expect(await suite.ok(repo, 'git_pull')).toBe(
      `Updating ${before}..${after}\nFast-forward\n o.txt | 1 +\n 1 file changed, 1 insertion(+)\n create mode 100644 o.txt\n` +
        `From ${url}\n   ${before}..${after}  main       -> origin/main`,
    );
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(git(other, 'rev-parse', 'HEAD'));
    expect(read(repo, 'o.txt')).toBe('o\n');
    expect(porcelain(repo)).toEqual([]);
  });

  it('up to date: `Already up to date.`', async () => {
    const { repo } = await withOrigin();
    expect(await suite.call(repo, 'git_pull').then(outcome)).toEqual({ ok: true, result: 'Already up to date.' });
  });

  it('without an upstream → git’s error, nothing changed', async () => {
    const repo = await suite.repo({ files: { 'a.txt': 'a\n' }, commit: 'first' });
    const before = repoState(repo);
    const reply = outcome(await suite.call(repo, 'git_pull'));
    expect(reply).toEqual({
      ok: false,
      error:
        'There is no tracking information for the current branch.\n' +
        'Please specify which branch you want to merge with.\n' +
        'See git-pull(1) for details.\n\n' +
        '    git pull <remote> <branch>\n\n' +
        'If you wish to set tracking information for this branch you can do so with:\n\n' +
        '    git branch --set-upstream-to=<remote>/<branch> main',
    });
    expect(repoState(repo)).toEqual(before);
  });
});

describe('not a repository', () => {
  it('push, fetch, pull in a plain folder: git’s not-a-repository error', async () => {
    const plain = await suite.folder('plain-remote');
    for (const command of ['git_push', 'git_fetch', 'git_pull']) {
      expect({ command, ...outcome(await suite.call(plain, command)) }).toEqual({
        command,
        ok: false,
        error: 'fatal: not a git repository (or any of the parent directories): .git',
      });
    }
  });
});

function short(repo: string): string {
  return git(repo, 'rev-parse', '--short', 'HEAD');
}
