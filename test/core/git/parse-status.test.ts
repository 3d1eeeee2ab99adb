import { rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GitStatus } from '../../../core/git/git-shapes.ts';
import { parseNumstatZ, STAGED_NUMSTAT_ARGS, WORKTREE_NUMSTAT_ARGS } from '../../../core/git/parse-numstat.ts';
import {
  needsStagedStats,
  needsWorktreeStats,
  parseBranchHeader,
  parseStatus,
  STATUS_ARGS,
  withStats,
} from '../../../core/git/parse-status.ts';
import { tempRepos, type TempRepo } from './temp-repos.ts';

const repos = tempRepos();
const bytes = (text: string) => new TextEncoder().encode(text);

/** get_git_status steps 2–5 as the command module runs them, over a real repo. */
function statusOf(repo: TempRepo): GitStatus {
  const status = parseStatus(repo.git(...STATUS_ARGS));
  return withStats(
    status,
    needsWorktreeStats(status) ? parseNumstatZ(repo.git(...WORKTREE_NUMSTAT_ARGS)) : undefined,
    needsStagedStats(status) ? parseNumstatZ(repo.git(...STAGED_NUMSTAT_ARGS)) : undefined,
  );
}

/** A GitStatus with every field, the given ones filled in. */
function expected(fields: Partial<GitStatus>): GitStatus {
  return {
    branch: 'main',
    ahead: 0,
    behind: 0,
    modified: [],
    staged: [],
    untracked: [],
    deleted: [],
    unmerged: [],
    stagedDetails: {},
    worktreeDetails: {},
    worktreeStats: {},
    stagedStats: {},
    ...fields,
  };
}

describe('parseStatus over real repositories', () => {
  it('a clean repo: the branch, nothing listed, and no diff needed', () => {
    const repo = repos.repo();
    repo.write('a.txt', 'a\n');
    repo.commitAll('one');
    const status = parseStatus(repo.git(...STATUS_ARGS));
    expect(status).toEqual(expected({}));
    expect([needsWorktreeStats(status), needsStagedStats(status)]).toEqual([false, false]);
  });

  it('a repo without commits: `No commits yet on B`, staged files are A, an untracked folder is `dir/`', () => {
    const repo = repos.repo('unborn');
    repo.git('checkout', '-q', '-b', 'trunk');
    repo.write('first.txt', 'one\ntwo\n');
    repo.write('dir/inner.txt', 'x\n');
    repo.write('loose.txt', 'l\n');
    repo.git('add', 'first.txt');
    expect(repo.git(...STATUS_ARGS).toString()).toMatch(/^## No commits yet on trunk\0/);
    expect(statusOf(repo)).toEqual(
      expected({
        branch: 'trunk',
        staged: ['first.txt'],
        untracked: ['dir/', 'loose.txt'],
        stagedDetails: { 'first.txt': 'A' },
        worktreeDetails: { 'dir/': 'U', 'loose.txt': 'U' },
        stagedStats: { 'first.txt': { insertions: 2, deletions: 0 } },
      }),
    );
  });

  it('every non-conflict XY: renames by new path, spaces, UTF-8, binary 0/0, type change, AD, MM, __proto__', () => {
    const repo = repos.repo('mixed');
    repo.write('keep.txt', '1\n');
    repo.write('mod.txt', 'a\n');
    repo.write('both.txt', 'x\n');
    repo.write('gone.txt', 'g\n');
    repo.write('rm-staged.txt', 'r\n');
    repo.write('old name.txt', 'o1\no2\n');
    repo.write('bin.dat', new Uint8Array([0, 1, 2]));
    repo.write('type.txt', 't\n');
    repo.write('ünï/čödé.txt', 'u\n');
    repo.write('__proto__', 'p\n');
    repo.commitAll('base');

    repo.write('mod.txt', 'a\nb\n');
    repo.write('both.txt', 'y\n');
    repo.git('add', 'both.txt');
    repo.write('both.txt', 'z\nw\n');
    unlinkSync(join(repo.dir, 'gone.txt'));
    repo.git('rm', '-q', 'rm-staged.txt');
    repo.git('mv', 'old name.txt', 'new name.txt');
    repo.write('bin.dat', new Uint8Array([0, 3]));
    unlinkSync(join(repo.dir, 'type.txt'));
    symlinkSync('keep.txt', join(repo.dir, 'type.txt'));
    repo.git('add', 'type.txt');
    repo.write('ünï/čödé.txt', 'u\nv\n');
    repo.write('__proto__', 'p\nq\n');
    repo.git('add', '__proto__');
    repo.write('added.txt', 'n\n');
    repo.git('add', 'added.txt');
    unlinkSync(join(repo.dir, 'added.txt'));
    repo.write('untracked dir/x', '\n');
    repo.write('untracked dir/y', '\n');
    repo.write('ü-new.txt', '\n');

    const status = statusOf(repo);
    expect(status).toEqual(
      expected({
        modified: ['bin.dat', 'both.txt', 'mod.txt', 'ünï/čödé.txt'],
        staged: ['__proto__', 'added.txt', 'both.txt', 'new name.txt', 'rm-staged.txt', 'type.txt'],
        untracked: ['untracked dir/', 'ü-new.txt'],
        deleted: ['added.txt', 'gone.txt', 'rm-staged.txt'],
        stagedDetails: {
          ['__proto__']: 'M', // computed: a literal `__proto__:` would set the prototype
          'added.txt': 'A',
          'both.txt': 'M',
          'new name.txt': 'R',
          'rm-staged.txt': 'D',
          'type.txt': 'T',
        },
        worktreeDetails: {
          'added.txt': 'D',
          'bin.dat': 'M',
          'both.txt': 'M',
          'gone.txt': 'D',
          'mod.txt': 'M',
          'ünï/čödé.txt': 'M',
          'untracked dir/': 'U',
          'ü-new.txt': 'U',
        },
        worktreeStats: {
          'added.txt': { insertions: 0, deletions: 1 },
          'bin.dat': { insertions: 0, deletions: 0 },
          'both.txt': { insertions: 2, deletions: 1 },
          'gone.txt': { insertions: 0, deletions: 1 },
          'mod.txt': { insertions: 1, deletions: 0 },
          'ünï/čödé.txt': { insertions: 1, deletions: 0 },
        },
        stagedStats: {
          ['__proto__']: { insertions: 1, deletions: 0 },
          'added.txt': { insertions: 1, deletions: 0 },
          'both.txt': { insertions: 1, deletions: 1 },
          'new name.txt': { insertions: 0, deletions: 0 },
          'rm-staged.txt': { insertions: 0, deletions: 1 },
          'type.txt': { insertions: 1, deletions: 1 },
        },
      }),
    );
    // `__proto__` is an own key, not the record's prototype, and the old name of the rename is nowhere.
    expect(Object.keys(status.stagedDetails)).toContain('__proto__');
    expect(JSON.stringify(status)).not.toContain('old name.txt');
  });

  it('a merge conflict: UU, AA, UD, DU only in `unmerged` with raw letters; a cleanly merged file is staged', () => {
    const repo = repos.repo('conflict');
    repo.write('same.txt', 'base\n');
    repo.write('ours-deletes.txt', 'd\n');
    repo.write('theirs-deletes.txt', 'd\n');
    repo.write('clean.txt', 'c\n');
    repo.commitAll('base');
    repo.git('checkout', '-q', '-b', 'side');
    repo.write('same.txt', 'side\n');
    repo.write('added both.txt', 'side\n');
    repo.write('ours-deletes.txt', 'd\nside\n');
    rmSync(join(repo.dir, 'theirs-deletes.txt'));
    repo.write('clean.txt', 'c\nside\n');
    repo.commitAll('side');
    repo.git('checkout', '-q', 'main');
    repo.write('same.txt', 'main\n');
    repo.write('added both.txt', 'main\n');
    rmSync(join(repo.dir, 'ours-deletes.txt'));
    repo.write('theirs-deletes.txt', 'd\nmain\n');
    repo.commitAll('main');
    expect(repo.gitAnyway('merge', '--no-edit', 'side').toString()).toContain('CONFLICT');

    expect(statusOf(repo)).toEqual(
      expected({
        staged: ['clean.txt'],
        unmerged: ['added both.txt', 'ours-deletes.txt', 'same.txt', 'theirs-deletes.txt'],
        stagedDetails: {
          'added both.txt': 'A',
          'clean.txt': 'M',
          'ours-deletes.txt': 'D',
          'same.txt': 'U',
          'theirs-deletes.txt': 'U',
        },
        worktreeDetails: {
          'added both.txt': 'A',
          'ours-deletes.txt': 'U',
          'same.txt': 'U',
          'theirs-deletes.txt': 'D',
        },
        // An unmerged path's placeholder `0 0` plus its diff against our side: the conflict markers and their
        // line (`<<<<<<< HEAD`, `=======`, `side`, `>>>>>>> side`), ours kept.
        worktreeStats: {
          'added both.txt': { insertions: 4, deletions: 0 },
          'ours-deletes.txt': { insertions: 0, deletions: 0 },
          'same.txt': { insertions: 4, deletions: 0 },
          'theirs-deletes.txt': { insertions: 0, deletions: 0 },
        },
        stagedStats: {
          'added both.txt': { insertions: 0, deletions: 0 },
          'clean.txt': { insertions: 1, deletions: 0 },
          'ours-deletes.txt': { insertions: 0, deletions: 0 },
          'same.txt': { insertions: 0, deletions: 0 },
          'theirs-deletes.txt': { insertions: 0, deletions: 0 },
        },
      }),
    );
  });

  it('a detached HEAD: `HEAD (no branch)`, 0/0', () => {
    const repo = repos.repo('detached');
    repo.write('a.txt', 'a\n');
    repo.commitAll('one');
    repo.write('a.txt', 'b\n');
    repo.commitAll('two');
    repo.git('checkout', '-q', 'HEAD~1');
    repo.write('a.txt', 'c\n');
    expect(statusOf(repo)).toEqual(
      expected({
        branch: 'HEAD (no branch)',
        modified: ['a.txt'],
        worktreeDetails: { 'a.txt': 'M' },
        worktreeStats: { 'a.txt': { insertions: 1, deletions: 1 } },
      }),
    );
  });

  it('ahead and behind a local bare remote, then `[gone]` once the remote branch is deleted', () => {
    const remote = repos.repo('remote.git', { bare: true });
    const seed = repos.repo('seed');
    seed.write('a.txt', 'a\n');
    seed.commitAll('one');
    seed.git('push', '-q', remote.dir, 'main');
    const local = repos.repo('local', { init: false });
    local.git('clone', '-q', remote.dir, '.');
    expect(parseStatus(local.git(...STATUS_ARGS))).toEqual(expected({}));

    seed.write('b.txt', 'b\n');
    seed.commitAll('two');
    seed.write('c.txt', 'c\n');
    seed.commitAll('three');
    seed.git('push', '-q', remote.dir, 'main');
    local.write('mine.txt', 'm\n');
    local.commitAll('mine');
    local.git('fetch', '-q');
    expect(local.git(...STATUS_ARGS).toString()).toBe('## main...origin/main [ahead 1, behind 2]\0');
    expect(parseStatus(local.git(...STATUS_ARGS))).toEqual(expected({ ahead: 1, behind: 2 }));

    local.git('checkout', '-q', '-b', 'feature/ü', '--track', 'origin/main');
    expect(parseStatus(local.git(...STATUS_ARGS))).toEqual(expected({ branch: 'feature/ü', behind: 0 }));
    local.git('reset', '-q', '--hard', 'HEAD~2');
    expect(parseStatus(local.git(...STATUS_ARGS))).toEqual(expected({ branch: 'feature/ü', behind: 2 }));

    local.git('checkout', '-q', 'main');
    remote.git('config', 'receive.denyDeleteCurrent', 'ignore');
    seed.git('push', '-q', remote.dir, ':main');
    local.git('fetch', '-q', '--prune');
    expect(local.git(...STATUS_ARGS).toString()).toBe('## main...origin/main [gone]\0');
    expect(parseStatus(local.git(...STATUS_ARGS))).toEqual(expected({}));
  });
});

describe('parseBranchHeader: every header form', () => {
  it.each([
    ['No commits yet on main', { branch: 'main', ahead: 0, behind: 0 }],
    ['Initial commit on master', { branch: 'master', ahead: 0, behind: 0 }],
    ['No commits yet on feat/x...origin/feat/x [gone]', { branch: 'feat/x', ahead: 0, behind: 0 }],
    ['main', { branch: 'main', ahead: 0, behind: 0 }],
    ['main...origin/main', { branch: 'main', ahead: 0, behind: 0 }],
    ['main...origin/main [ahead 1]', { branch: 'main', ahead: 1, behind: 0 }],
    ['main...origin/main [behind 12]', { branch: 'main', ahead: 0, behind: 12 }],
    ['main...origin/main [ahead 3, behind 2]', { branch: 'main', ahead: 3, behind: 2 }],
    ['main...origin/main [gone]', { branch: 'main', ahead: 0, behind: 0 }],
    ['HEAD (no branch)', { branch: 'HEAD (no branch)', ahead: 0, behind: 0 }],
    ['ünï/b@x...up/ünï [ahead 7]', { branch: 'ünï/b@x', ahead: 7, behind: 0 }],
  ])('%j', (header, result) => {
    expect(parseBranchHeader(header)).toEqual(result);
  });
});

describe('parseStatus on fixed bytes (forms a test repo cannot make here)', () => {
  it('Y-side renames and copies take their old path too; ignored entries are skipped; no header is fine', () => {
    const out = bytes(' R b.txt\0a.txt\0C  copy.txt\0orig.txt\0!! build/\0 M z.txt\0');
    expect(parseStatus(out)).toEqual(
      expected({
        branch: '',
        modified: ['b.txt', 'z.txt'],
        staged: ['copy.txt'],
        stagedDetails: { 'copy.txt': 'C' },
        worktreeDetails: { 'b.txt': 'M', 'z.txt': 'M' },
      }),
    );
  });

  it('DD, AU, UA: unmerged with their raw letters', () => {
    const out = bytes('## main\0DD x\0AU y\0UA z\0');
    expect(parseStatus(out)).toEqual(
      expected({
        unmerged: ['x', 'y', 'z'],
        stagedDetails: { x: 'D', y: 'A', z: 'U' },
        worktreeDetails: { x: 'D', y: 'U', z: 'A' },
      }),
    );
  });

  it('paths are never unquoted or split: quotes, arrows, tabs and newlines are part of the name', () => {
    const out = bytes('## main\0 M "q".txt\0 M a -> b\0?? tab\there\0?? new\nline\0');
    expect(parseStatus(out)).toEqual(
      expected({
        modified: ['"q".txt', 'a -> b'],
        untracked: ['tab\there', 'new\nline'],
        worktreeDetails: { '"q".txt': 'M', 'a -> b': 'M', 'tab\there': 'U', 'new\nline': 'U' },
      }),
    );
  });
});

describe('parseNumstatZ', () => {
  it('plain, binary, a rename (empty path field, then OLD, NEW) and repeated paths summed', () => {
    const out = bytes('3\t1\ta b.txt\0-\t-\timg.png\x002\t0\t\0old.txt\0new.txt\x000\t0\tc\x004\t1\tc\0');
    expect(parseNumstatZ(out)).toEqual({
      'a b.txt': { insertions: 3, deletions: 1 },
      'img.png': { insertions: 0, deletions: 0 },
      'new.txt': { insertions: 2, deletions: 0 },
      c: { insertions: 4, deletions: 1 },
    });
    expect(parseNumstatZ(new Uint8Array())).toEqual({});
  });

  it('a rename over real git, both sides: keyed by the new path, counts of the content change', () => {
    const repo = repos.repo('rename-stats');
    repo.write('from dir/a.txt', '1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n');
    repo.commitAll('base');
    repo.git('mv', 'from dir', 'to ü');
    repo.write('to ü/a.txt', '1\n2\n3\n4\n5\n6\n7\n8\n9\nten\n');
    repo.git('add', '-A');
    expect(parseNumstatZ(repo.git(...STAGED_NUMSTAT_ARGS))).toEqual({ 'to ü/a.txt': { insertions: 1, deletions: 1 } });
  });
});
