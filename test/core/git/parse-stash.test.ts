import { describe, expect, it } from 'vitest';
import { parseStashList, STASH_FORMAT, STASH_LIST_ARGS } from '../../../core/git/parse-stash.ts';
import { tempRepos } from './temp-repos.ts';

const repos = tempRepos();

describe('parseStashList over a real repository', () => {
  const repo = repos.repo();
  repo.write('a.txt', 'a\n');
  repo.commitAll('base');

  it('no stash: []', () => {
    expect(STASH_LIST_ARGS).toEqual(['stash', 'list', STASH_FORMAT]);
    expect(parseStashList(repo.git(...STASH_LIST_ARGS))).toEqual([]);
  });

  it('stashes newest first: stash@{N}, the reflog subject, the author time; untracked files and odd messages', () => {
    repo.write('a.txt', 'changed\n');
    repo.gitAt(1700000100, 'stash', 'push', '-q', '-u', '-m', 'WIP from NoIDE');
    repo.write('new file ü.txt', 'untracked\n');
    repo.gitAt(1700000200, 'stash', 'push', '-q', '-u', '-m', 'a | b: c\x1fd');
    repo.git('checkout', '-q', '-b', 'feature/x');
    repo.write('a.txt', 'again\n');
    repo.gitAt(1700000300, 'stash', 'push', '-q');
    const base = repo.git('rev-parse', '--short', 'HEAD').toString().trim();
    expect(parseStashList(repo.git(...STASH_LIST_ARGS))).toEqual([
      { ref: 'stash@{0}', message: `WIP on feature/x: ${base} base`, time: 1700000300 },
      { ref: 'stash@{1}', message: 'On main: a | b: c\x1fd', time: 1700000200 },
      { ref: 'stash@{2}', message: 'On main: WIP from NoIDE', time: 1700000100 },
    ]);
  });

  it('after a drop the refs renumber, as git names them', () => {
    repo.git('stash', 'drop', '-q', 'stash@{1}');
    expect(parseStashList(repo.git(...STASH_LIST_ARGS)).map((stash) => [stash.ref, stash.time])).toEqual([
      ['stash@{0}', 1700000300],
      ['stash@{1}', 1700000100],
    ]);
  });
});

describe('parseStashList on fixed bytes', () => {
  it('a date-form selector is renumbered by position; lines without the fields are skipped', () => {
    const out = new TextEncoder().encode('stash@{Mon Nov 13}\x1f5\x1fOn main: x\nnot a stash line\nstash@{1}\x1f6\x1fy\n');
    expect(parseStashList(out)).toEqual([
      { ref: 'stash@{0}', message: 'On main: x', time: 5 },
      { ref: 'stash@{1}', message: 'y', time: 6 },
    ]);
  });
});
