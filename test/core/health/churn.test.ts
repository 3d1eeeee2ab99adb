/**
 * Churn (core/health/churn.ts) on a real repo with fixed commit dates: equal to `git log --numstat --no-merges`
 * read the plain way (per file: commits, added, deleted, newest committer time), a window cutting by committer
 * time, merges left out, a binary file counted 0, paths prefixed with the scope.
 */
import { describe, expect, it } from 'vitest';
import { createGitProcess } from '../../../adapters/git/git-process.ts';
import { ChurnReader, parseChurn, readChurn, type FileChurn } from '../../../core/health/churn.ts';
import type { GitRunner } from '../../../core/git/git-runner.ts';
import { tempRepos } from '../git/temp-repos.ts';

const repos = tempRepos();
const DAY = 86_400;
const T0 = 1_704_067_200; // 2024-01-01T00:00:00Z

function makeRepo() {
  const repo = repos.repo();
  repo.write('a.ts', 'one\ntwo\nthree\n');
  repo.write('bin.dat', new Uint8Array([0, 1, 2, 0, 255]));
  repo.commitAll('c1', T0);
  repo.write('a.ts', 'one\nTWO\nthree\n');
  repo.write('src/b.ts', 'b\n');
  repo.commitAll('c2', T0 + 31 * DAY);
  repo.git('checkout', '-q', '-b', 'side');
  repo.write('src/b.ts', 'b\nb2\nb3\n');
  repo.write('bin.dat', new Uint8Array([0, 9, 9, 0]));
  repo.commitAll('c3 on side', T0 + 60 * DAY);
  repo.git('checkout', '-q', 'main');
  repo.write('a.ts', 'one\nTWO\n');
  repo.commitAll('c4', T0 + 61 * DAY);
  repo.gitAt(T0 + 62 * DAY, 'merge', '-q', '--no-ff', '-m', 'merge side', 'side');
  return repo;
}

/** `git log --numstat --no-merges --format=%ct`, read line by line: the reference. */
function reference(log: string, sinceSeconds = 0): Record<string, FileChurn> {
  const out: Record<string, FileChurn> = {};
  let time = 0;
  for (const line of log.split('\n')) {
    if (/^\d+$/.test(line)) {
      time = Number(line);
      continue;
    }
    const match = /^(\d+|-)\t(\d+|-)\t(.+)$/.exec(line);
    if (!match || time < sinceSeconds) continue;
    const entry = (out[match[3]!] ??= { commits: 0, adds: 0, dels: 0, latestMs: 0 });
    entry.commits++;
    entry.adds += match[1] === '-' ? 0 : Number(match[1]);
    entry.dels += match[2] === '-' ? 0 : Number(match[2]);
    entry.latestMs = Math.max(entry.latestMs, time * 1000);
  }
  return out;
}

describe('churn from git log --numstat', () => {
  it('all history: equal to git log --numstat, merges left out, binary 0', async () => {
    const repo = makeRepo();
    const churn = await readChurn(createGitProcess({ root: repo.dir }), repo.dir, '');
    const expected = reference(repo.git('log', '--numstat', '--no-merges', '--format=%ct').toString());
    expect(Object.fromEntries(churn)).toEqual(expected);
    expect(Object.fromEntries(churn)).toEqual({
      'a.ts': { commits: 3, adds: 3 + 1 + 0, dels: 0 + 1 + 1, latestMs: (T0 + 61 * DAY) * 1000 },
      'bin.dat': { commits: 2, adds: 0, dels: 0, latestMs: (T0 + 60 * DAY) * 1000 },
      'src/b.ts': { commits: 2, adds: 1 + 2, dels: 0, latestMs: (T0 + 60 * DAY) * 1000 },
    });
  });

  it('a window keeps commits at or after its start (committer time); paths carry the scope prefix', async () => {
    const repo = makeRepo();
    const since = (T0 + 60 * DAY) * 1000;
    const churn = await readChurn(createGitProcess({ root: repo.dir }), repo.dir, 'shop', since);
    expect(Object.fromEntries(churn)).toEqual({
      'shop/a.ts': { commits: 1, adds: 0, dels: 1, latestMs: (T0 + 61 * DAY) * 1000 },
      'shop/bin.dat': { commits: 1, adds: 0, dels: 0, latestMs: (T0 + 60 * DAY) * 1000 },
      'shop/src/b.ts': { commits: 1, adds: 2, dels: 0, latestMs: (T0 + 60 * DAY) * 1000 },
    });
    const expected = reference(repo.git('log', '--numstat', '--no-merges', '--format=%ct').toString(), T0 + 60 * DAY);
    expect(Object.keys(expected).sort()).toEqual(['a.ts', 'bin.dat', 'src/b.ts']);
  });

  it('run in a subfolder, only its files, relative to it', async () => {
    const repo = makeRepo();
    const churn = await readChurn(createGitProcess({ root: repo.dir }), `${repo.dir}/src`, 'src');
    expect([...churn.keys()]).toEqual(['src/b.ts']);
  });

  it('a folder with no commits, or no repo, has no churn', async () => {
    const empty = repos.repo();
    expect((await readChurn(createGitProcess({ root: empty.dir }), empty.dir, '')).size).toBe(0);
  });

  it('a rename counts under its new path (the -z record form)', () => {
    const out = new TextEncoder().encode('\x1e1700000000\0\n2\t1\t\0old.ts\0new.ts\0\x1e1600000000\0\n-\t-\tx.bin\0');
    expect(Object.fromEntries(parseChurn(out, ''))).toEqual({
      'new.ts': { commits: 1, adds: 2, dels: 1, latestMs: 1_700_000_000_000 },
      'x.bin': { commits: 1, adds: 0, dels: 0, latestMs: 1_600_000_000_000 },
    });
  });
});

describe('ChurnReader: the log again only when HEAD moved or the window widened', () => {
  /** The real git, counting the `log` runs. */
  function countingGit(root: string): { git: GitRunner; logs: () => number } {
    const real = createGitProcess({ root });
    let logs = 0;
    const git: GitRunner = {
      ...real,
      run: (args, options) => {
        if (args[0] === 'log') logs++;
        return real.run(args, options);
      },
    };
    return { git, logs: () => logs };
  }

  it('answers what readChurn answers, from one log while HEAD stays, for the same or a narrower window', async () => {
    const repo = makeRepo();
    const { git, logs } = countingGit(repo.dir);
    const reader = new ChurnReader(git);
    const fresh = (since?: number) => readChurn(createGitProcess({ root: repo.dir }), repo.dir, '', since);
    const wide = (T0 + 31 * DAY) * 1000;
    const narrow = (T0 + 60 * DAY) * 1000 + 1;
    expect(Object.fromEntries(await reader.read(repo.dir, '', wide))).toEqual(Object.fromEntries(await fresh(wide)));
    expect(Object.fromEntries(await reader.read(repo.dir, '', wide))).toEqual(Object.fromEntries(await fresh(wide)));
    // Cut to the millisecond from the kept log: the commit at T0+60d is out.
    const cut = await reader.read(repo.dir, '', narrow);
    expect(Object.fromEntries(cut)).toEqual(Object.fromEntries(await fresh(narrow)));
    expect([...cut.keys()]).toEqual(['a.ts']);
    expect(logs()).toBe(1);
    // A wider window than the kept one, then all history: the log runs again (each time), and then stays.
    expect(Object.fromEntries(await reader.read(repo.dir, '', T0 * 1000))).toEqual(Object.fromEntries(await fresh(T0 * 1000)));
    expect(Object.fromEntries(await reader.read(repo.dir, ''))).toEqual(Object.fromEntries(await fresh()));
    expect(Object.fromEntries(await reader.read(repo.dir, '', narrow))).toEqual(Object.fromEntries(await fresh(narrow)));
    expect(logs()).toBe(3);
  });

  it('a new commit moves HEAD: the next read sees it', async () => {
    const repo = makeRepo();
    const { git, logs } = countingGit(repo.dir);
    const reader = new ChurnReader(git);
    expect((await reader.read(repo.dir, '')).get('a.ts')?.commits).toBe(3);
    repo.write('a.ts', 'one\nTWO\nfour\n');
    repo.commitAll('c5', T0 + 70 * DAY);
    expect((await reader.read(repo.dir, '')).get('a.ts')).toEqual({ commits: 4, adds: 4 + 1, dels: 2, latestMs: (T0 + 70 * DAY) * 1000 });
    expect(logs()).toBe(2);
  });

  it('a repo with no commit has no churn and runs no log', async () => {
    const empty = repos.repo();
    const { git, logs } = countingGit(empty.dir);
    expect((await new ChurnReader(git).read(empty.dir, '')).size).toBe(0);
    expect(logs()).toBe(0);
  });
});
