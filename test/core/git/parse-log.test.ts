import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOG_FORMAT, logArgs, parseLog } from '../../../core/git/parse-log.ts';
import { tempRepos } from './temp-repos.ts';

const repos = tempRepos();
const bytes = (text: string) => new TextEncoder().encode(text);

describe('parseLog over a real repository', () => {
  const repo = repos.repo();
  const head = () => ({
    hash: repo.git('rev-parse', 'HEAD').toString().trim(),
    shortHash: repo.git('rev-parse', '--short', 'HEAD').toString().trim(),
  });

  repo.write('a.txt', '1\n2\n3\n');
  repo.write('b.bin', new Uint8Array([0, 1, 2, 3]));
  repo.commitAll('first: spaces | pipes |', 1700000001);
  const first = head();

  repo.git('checkout', '-q', '-b', 'side');
  repo.write('a.txt', 'one\n2\n3\n');
  repo.commitAll('side work', 1700000002);
  const side = head();

  repo.git('checkout', '-q', 'main');
  repo.write('c.txt', 'c1\nc2\nc3\nc4\nc5\nc6\nc7\nc8\n');
  repo.commitAll('main | work', 1700000003);
  const main = head();

  repo.gitAt(1700000004, 'merge', '-q', '--no-ff', '--no-edit', 'side');
  const merge = head();

  repo.write('b.bin', new Uint8Array([0, 9]));
  rmSync(join(repo.dir, 'c.txt'));
  repo.write('d dir/c ü.txt', 'c1\nc2\nc3\nc4\nc5\nc6\nc7\nCHANGED\n');
  repo.git('add', '-A');
  repo.gitAt(1700000005, 'commit', '-q', '--author=Zoë Ünicode <z@example.com>', '-m', 'subject line\nwraps\n\nthe body');
  const renamed = head();

  repo.write('a.txt', 'one\n');
  repo.gitAt(1700000006, 'commit', '-q', '-a', '-m', 'odd\tfield\x1fseparator inside');
  const odd = head();

  it('every commit newest first, numstat sums (binary 0, merge 0/0, a rename its changed lines)', () => {
    expect(parseLog(repo.git(...logArgs(50)))).toEqual([
      {
        ...odd,
        message: 'odd\tfield\x1fseparator inside',
        author: 'Ada Lovelace',
        time: 1700000006,
        insertions: 0,
        deletions: 2,
      },
      { ...renamed, message: 'subject line wraps', author: 'Zoë Ünicode', time: 1700000005, insertions: 1, deletions: 1 },
      { ...merge, message: "Merge branch 'side'", author: 'Ada Lovelace', time: 1700000004, insertions: 0, deletions: 0 },
      { ...main, message: 'main | work', author: 'Ada Lovelace', time: 1700000003, insertions: 8, deletions: 0 },
      { ...side, message: 'side work', author: 'Ada Lovelace', time: 1700000002, insertions: 1, deletions: 1 },
      { ...first, message: 'first: spaces | pipes |', author: 'Ada Lovelace', time: 1700000001, insertions: 3, deletions: 0 },
    ]);
  });

  it('-N limits it to the newest N', () => {
    expect(logArgs(2)).toEqual(['log', '--no-color', '-2', LOG_FORMAT, '--numstat']);
    expect(parseLog(repo.git(...logArgs(2))).map((commit) => commit.message)).toEqual([
      'odd\tfield\x1fseparator inside',
      'subject line wraps',
    ]);
  });
});

describe('parseLog on fixed bytes', () => {
  it('empty output → []; lines before the first header and malformed headers are skipped', () => {
    expect(parseLog(new Uint8Array())).toEqual([]);
    expect(parseLog(bytes('1\t2\tstray\n\x1eonly\x1ftwo\n3\t4\tx\n'))).toEqual([]);
  });

  it('numstat lines of a header belong to it, not the next; a bad count is 0', () => {
    const out = bytes('\x1eH1\x1fh1\x1fA\x1f10\x1fone\n\n5\t2\ta\n-\t-\tbin\nx\t1\tb\n\x1eH2\x1fh2\x1fB\x1fnot-a-time\x1ftwo\n');
    expect(parseLog(out)).toEqual([
      { hash: 'H1', shortHash: 'h1', message: 'one', author: 'A', time: 10, insertions: 5, deletions: 3 },
      { hash: 'H2', shortHash: 'h2', message: 'two', author: 'B', time: 0, insertions: 0, deletions: 0 },
    ]);
  });
});
