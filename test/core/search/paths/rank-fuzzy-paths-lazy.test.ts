/**
 * The lazy ranking (rankFuzzyPathsLazily) orders only as far as a page reads and scores the ordered-characters
 * matches only when a page reaches past the substring ones: every slice, page after page, must still be exactly
 * the slice of scoring every path with fuzzyPathScore and sorting them all (best score first, ties by path).
 */
import { describe, expect, it } from 'vitest';
import { foldCase, fuzzyPathScore } from '../../../../core/search/paths/fuzzy-path-score.ts';
import { compareRanked, fuzzyPathGroup, rankFuzzyPaths, rankFuzzyPathsLazily, type RankedPath } from '../../../../core/search/paths/rank-fuzzy-paths.ts';
import { filesMode } from '../../../../core/search/modes/files-mode.ts';
import type { ListedFile } from '../../../../core/search/file-list/listed-file.ts';
import { seededRandom } from '../../text/generators.ts';

function bruteForce(query: string, paths: readonly string[]): RankedPath[] {
  return paths
    .map((path) => ({ path, score: fuzzyPathScore(query, path) }))
    .filter((r): r is RankedPath => r.score !== undefined)
    .sort(compareRanked);
}

/** Paths of folders and names from small alphabets, so queries hit both substrings and scattered characters. */
function generatedPaths(seed: number, count: number): string[] {
  const random = seededRandom(seed);
  const word = (alphabet: string, max: number) => {
    let out = '';
    const length = 1 + Math.floor(random() * max);
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length)]!;
    return out;
  };
  const paths = new Set<string>();
  while (paths.size < count) {
    const depth = Math.floor(random() * 4);
    const parts: string[] = [];
    for (let d = 0; d < depth; d++) parts.push(word('abcdrsAB_-.', 6));
    parts.push(word('abcdrsxyzDS_.-é😀', 9) + (random() < 0.5 ? '.c' : ''));
    // Some long paths: the ordered rule's length factor (and the ranker's bound on it) comes into play.
    if (random() < 0.2) parts.unshift('very/long/prefix/folder/that/goes/on');
    paths.add(parts.join('/'));
  }
  return [...paths];
}

function queriesFor(seed: number, paths: readonly string[], count: number): string[] {
  const random = seededRandom(seed);
  const queries = ['a', 'ab', 'AB', 'sc', 'dr', 'd/s', 'a.c', 'é', '😀', 'zzzz', 'ba', 'x_y', 'rs/ab'];
  while (queries.length < count) {
    const path = paths[Math.floor(random() * paths.length)]!;
    const start = Math.floor(random() * path.length);
    const piece = path.slice(start, start + 1 + Math.floor(random() * 4));
    // Half the queries are substrings; the others drop a character, so they match in order only.
    const query = random() < 0.5 || piece.length < 3 ? piece : piece.slice(0, 1) + piece.slice(2);
    queries.push(random() < 0.3 ? query.toUpperCase() : query);
  }
  return queries;
}

describe('substring matches outrank ordered-character ones', () => {
  it('a substring scores at least 0.75, any other match below 0.7', () => {
    const paths = generatedPaths(3, 600);
    let substrings = 0;
    let ordered = 0;
    for (const query of queriesFor(4, paths, 60)) {
      for (const path of paths) {
        const score = fuzzyPathScore(query, path);
        if (score === undefined) continue;
        if (foldCase(path).includes(foldCase(query))) {
          substrings++;
          expect(score).toBeGreaterThanOrEqual(0.75);
        } else {
          ordered++;
          expect(score).toBeLessThan(0.7);
        }
      }
    }
    // Both kinds were seen plenty (the test could otherwise pass without looking).
    expect(substrings).toBeGreaterThan(1000);
    expect(ordered).toBeGreaterThan(1000);
  });

  it('the best ordered scores stay below 0.7: every character after a boundary, all but one adjacent', () => {
    // a at index 0, b and c after '-': each 1 + 0.6 = 1.6 → 4.8 × 0.7 / 7.2 = 0.467
    expect(fuzzyPathScore('abc', 'a-b-c')).toBeCloseTo((4.8 * 0.7) / 7.2, 12);
    // A, B adjacent capitals, then c after '_': 1.6 + (1 + 0.8 + 0.6) + 1.6 = 5.6 → 5.6 × 0.7 / 7.2 = 0.544
    expect(fuzzyPathScore('abc', 'AB_c')).toBeCloseTo((5.6 * 0.7) / 7.2, 12);
    expect(fuzzyPathScore('abc', 'AB_c')).toBeLessThan(0.7);
    // The least substring score: 0.75 + 5/len, however long the path.
    expect(fuzzyPathScore('abc', 'x/'.repeat(500) + 'abc/y')).toBeGreaterThan(0.75);
  });
});

describe('rankFuzzyPathsLazily', () => {
  const paths = generatedPaths(7, 2500);
  const sorted = [...paths].sort().map((path) => ({ path }));
  const shuffle = seededRandom(8);
  const shuffled = [...sorted].sort(() => shuffle() - 0.5);
  const queries = queriesFor(9, paths, 25);

  it('has the length of the full ranking and gives its slices, any window, sorted or shuffled items', () => {
    const random = seededRandom(10);
    for (const query of queries) {
      const brute = bruteForce(query, paths);
      for (const items of [sorted, shuffled]) {
        const ranking = rankFuzzyPathsLazily(query, items);
        expect(ranking.length).toBe(brute.length);
        // Random windows, read in random order from one ranking (it orders further as later ranks are read).
        for (let w = 0; w < 6; w++) {
          const start = Math.floor(random() * (brute.length + 5)) - 2;
          const end = start + Math.floor(random() * 80);
          expect(ranking.slice(start, end)).toEqual(brute.slice(Math.max(0, start), Math.max(0, end)));
        }
        expect(rankFuzzyPaths(query, items)).toEqual(brute);
      }
    }
  });

  it('pages after pages, and pages across the substring / ordered boundary, are the full ranking', () => {
    let straddled = 0;
    for (const query of queries) {
      const brute = bruteForce(query, paths);
      const split = brute.filter((ranked) => ranked.score >= 0.75).length;
      for (const size of [1, 7, 50]) {
        const ranking = rankFuzzyPathsLazily(query, sorted);
        const pages: RankedPath[] = [];
        for (let start = 0; start < brute.length; start += size) {
          const page = ranking.slice(start, start + size);
          expect(page.length).toBe(Math.min(size, brute.length - start));
          if (start < split && start + size > split) straddled++;
          pages.push(...page);
        }
        expect(pages).toEqual(brute);
      }
      // A page that starts right at the first ordered-characters match, on a fresh ranking.
      expect(rankFuzzyPathsLazily(query, shuffled).slice(split, split + 5)).toEqual(brute.slice(split, split + 5));
    }
    expect(straddled).toBeGreaterThan(20);
  });

  it('breaks a tie at the page boundary by path (many equal scores)', () => {
    // 300 paths of one length holding the query in the base name: one score for all; then 300 ordered ones.
    const tied = Array.from({ length: 300 }, (_, i) => `d${String(i).padStart(3, '0')}/key.c`);
    const scattered = Array.from({ length: 300 }, (_, i) => `k${String(i).padStart(3, '0')}/e/y.c`);
    const shuffle = seededRandom(12);
    const items = [...tied, ...scattered].sort(() => shuffle() - 0.5).map((path) => ({ path }));
    const brute = bruteForce('key', items.map((item) => item.path));
    expect(new Set(brute.slice(0, 300).map((r) => r.score)).size).toBe(1);
    const ranking = rankFuzzyPathsLazily('key', items);
    expect(ranking.slice(0, 7)).toEqual(brute.slice(0, 7));
    expect(ranking.slice(295, 310)).toEqual(brute.slice(295, 310));
    expect(ranking.slice(580, 700)).toEqual(brute.slice(580));
    expect(ranking.slice(7, 600)).toEqual(brute.slice(7));
  });

  it('typing a query out (each keystroke matched among the last ones), case flips, backspaces and other queries between', () => {
    // The ranker narrows a query to the matches of a kept query it extends: every keystroke must still be the
    // whole answer. Fresh arrays, so no earlier test's kept queries are reused.
    const items = paths.map((path) => ({ path }));
    const shuffledItems = [...items].reverse();
    const typed: string[] = [];
    for (const word of ['abrs/d', 'D_b.c', 'sa/b', 'ab']) {
      for (let end = 1; end <= word.length; end++) typed.push(end % 2 === 0 ? word.slice(0, end).toUpperCase() : word.slice(0, end));
      typed.push(word.slice(0, 2), 'zz', word.slice(0, 3), word + 'x', word + 'é');
    }
    for (const query of typed) {
      const brute = bruteForce(query, paths);
      for (const list of [items, shuffledItems]) {
        const ranking = rankFuzzyPathsLazily(query, list);
        expect(ranking.length).toBe(brute.length);
        expect(ranking.slice(0, 60)).toEqual(brute.slice(0, 60));
      }
    }
  });

  it('answers nothing for an empty list or a query nothing holds', () => {
    expect(rankFuzzyPathsLazily('ab', []).slice(0, 50)).toEqual([]);
    const ranking = rankFuzzyPathsLazily('qqq', sorted);
    expect(ranking.length).toBe(0);
    expect(ranking.slice(0, 50)).toEqual([]);
  });
});

describe('filesMode groups', () => {
  it('builds the groups of the ranks read, with the ranks of the whole set', () => {
    const paths = generatedPaths(21, 1200).sort();
    const files = paths.map((path) => ({ path }) as ListedFile);
    for (const query of ['ab', 'sc', 'd/s', 'zzz', 'AbC']) {
      const whole = rankFuzzyPaths(query, files).map(fuzzyPathGroup);
      const set = filesMode(query, files);
      expect(set.total).toBe(whole.length);
      expect(set.groups.length).toBe(whole.length);
      for (const [start, end] of [[0, 50], [50, 100], [whole.length - 3, whole.length + 10], [0, whole.length]] as const) {
        expect(set.groups.slice(start, end)).toEqual(whole.slice(Math.max(0, start), end));
      }
    }
  });
});
