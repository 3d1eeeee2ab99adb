import { describe, expect, it } from 'vitest';
import { foldCase, fuzzyPathScore, scoreFolded } from '../../../../core/search/paths/fuzzy-path-score.ts';
import { seededRandom } from '../../text/generators.ts';
import { compareRanked, fuzzyPathGroup, rankFuzzyPaths } from '../../../../core/search/paths/rank-fuzzy-paths.ts';

// Every expected number is worked out by hand from docs/intentic-search.md's formula, in the comment beside it.
describe('fuzzyPathScore', () => {
  it('scores a substring 0.75, + 0.2 when it starts in the base name, + 5/len(path)', () => {
    expect(fuzzyPathScore('main', 'src/main.go')).toBeCloseTo(0.75 + 0.2 + 5 / 11, 12); // at 4 = base start
    expect(fuzzyPathScore('src', 'src/x.ts')).toBeCloseTo(0.75 + 5 / 8, 12); // only in the folder
    expect(fuzzyPathScore('src', 'src/src.ts')).toBeCloseTo(0.75 + 0.2 + 5 / 10, 12); // the last one is in the base
    expect(fuzzyPathScore('c/d', 'a/b/c/domain.txt')).toBeCloseTo(0.75 + 5 / 16, 12); // starts before the base name
  });

  it('is case-insensitive both ways', () => {
    expect(fuzzyPathScore('MAIN', 'src/main.go')).toBe(fuzzyPathScore('main', 'src/main.go'));
    expect(fuzzyPathScore('main', 'SRC/MAIN.GO')).toBe(fuzzyPathScore('main', 'src/main.go'));
  });

  it('scores ordered characters: 1 each, +0.8 adjacent, +0.6 at a boundary or capital, × 0.7/(2.4n) × length factor', () => {
    // a@0: 1 + 0.6 (index 0); b@2: 1 + 0.6 (after _); c@4: 1 + 0.6 (after -) → 4.8 × 0.7 / 7.2
    expect(fuzzyPathScore('abc', 'a_b-c')).toBeCloseTo((4.8 * 0.7) / 7.2, 12);
    // a@1: 1; b@2: 1 + 0.8 (adjacent); c@4: 1 + 0.6 (after /) → 4.4 × 0.7 / 7.2
    expect(fuzzyPathScore('abc', 'qab/c')).toBeCloseTo((4.4 * 0.7) / 7.2, 12);
    // f@0: 1 + 0.6; b@3: 1 + 0.6 (a capital, folded match) → 3.2 × 0.7 / 4.8
    expect(fuzzyPathScore('fb', 'FooBar.ts')).toBeCloseTo((3.2 * 0.7) / 4.8, 12);
    // a@1 after '.': 1.6; b@2: 1 + 0.8 → 3.4 × 0.7 / 4.8 (one bonus per kind even when both apply)
    expect(fuzzyPathScore('ab', '.abx')).toBeCloseTo(0.75 + 0.2 + 5 / 4, 12); // a substring wins first
    expect(fuzzyPathScore('ax', '.abx')).toBeCloseTo(((1.6 + 1) * 0.7) / 4.8, 12); // a@1 after '.', x@3
    // boundary and capital together count once: B@2 after '-' is 1 + 0.6
    expect(fuzzyPathScore('ab', 'a-B')).toBeCloseTo(((1.6 + 1.6) * 0.7) / 4.8, 12);
  });

  it('takes each character greedily, at its first occurrence after the previous one', () => {
    // x@0: 1.6; y@1: 1 + 0.8 = 1.8; z@3: 1 (after 'x': no bonus) — though 'y' at 4 then 'z' at 5 would score more
    expect(fuzzyPathScore('xyz', 'xyxzyz')).toBeCloseTo(((1.6 + 1.8 + 1) * 0.7) / 7.2, 12);
  });

  it('shrinks long paths by min(1, 20 / max(20, len − n))', () => {
    const long = 'a' + 'x'.repeat(30) + 'b'; // len 32, n 2 → 20/30
    expect(fuzzyPathScore('ab', long)).toBeCloseTo((((1.6 + 1) * 0.7) / 4.8) * (20 / 30), 12);
    const edge = 'a' + 'x'.repeat(20) + 'b'; // len 22 → 22 − 2 = 20 → factor 1
    expect(fuzzyPathScore('ab', edge)).toBeCloseTo(((1.6 + 1) * 0.7) / 4.8, 12);
  });

  it('is undefined unless every character is found in order', () => {
    expect(fuzzyPathScore('zz', 'abc')).toBeUndefined();
    expect(fuzzyPathScore('ba', 'ab')).toBeUndefined();
    expect(fuzzyPathScore('aa', 'a/b')).toBeUndefined();
  });

  it('counts UTF-16 code units and folds per code unit', () => {
    // '😀' is two code units: len 7 → 0.75 + 0.2 + 5/7
    expect(fuzzyPathScore('😀', 'a/😀.md')).toBeCloseTo(0.95 + 5 / 7, 12);
    // 'É' folds to 'é' and is a capital: é@0 1.6, b@2 after '/' 1.6
    expect(fuzzyPathScore('éb', 'É/b')).toBeCloseTo(((1.6 + 1.6) * 0.7) / 4.8, 12);
    // 'İ' would lower-case to two code units: it stays itself, so offsets keep lining up
    expect(fuzzyPathScore('x', 'İx')).toBeCloseTo(0.95 + 5 / 2, 12);
  });
});

describe('rankFuzzyPaths', () => {
  it('ranks best score first, ties by path in code-unit order', () => {
    const items = ['b/ab.x', 'zz/q/long/a/b', 'B/ab.x', 'a/ab.x', 'ab.x', 'none'].map((path) => ({ path }));
    expect(rankFuzzyPaths('ab', items)).toEqual([
      { path: 'ab.x', score: 0.95 + 5 / 4 },
      { path: 'B/ab.x', score: 0.95 + 5 / 6 },
      { path: 'a/ab.x', score: 0.95 + 5 / 6 },
      { path: 'b/ab.x', score: 0.95 + 5 / 6 },
      // a@10 after '/': 1.6; b@12 after '/': 1.6 → 3.2 × 0.7 / 4.8, len 13 → factor 1
      { path: 'zz/q/long/a/b', score: (3.2 * 0.7) / 4.8 },
    ]);
  });

  it('makes groups: score 1/(rank+1), one hit with the fuzzy tag at min(1, score) to two places', () => {
    const [first, second] = rankFuzzyPaths('ab', [{ path: 'ab.x' }, { path: 'zz/q/long/a/b' }]);
    expect(fuzzyPathGroup(first!, 0)).toEqual({
      path: 'ab.x',
      score: 1,
      hits: [{ line: 1, text: 'ab.x', spans: [], tags: [{ kind: 'fuzzy', score: 1 }] }],
    });
    expect(fuzzyPathGroup(second!, 1)).toEqual({
      path: 'zz/q/long/a/b',
      score: 0.5,
      hits: [{ line: 1, text: 'zz/q/long/a/b', spans: [], tags: [{ kind: 'fuzzy', score: 0.47 }] }],
    });
  });

  it('gives exactly what scoring and sorting every path gives (the prefilter loses nothing)', () => {
    const random = seededRandom(11);
    const alphabet = 'abcdeABCDE/._-xyzé😀İ0';
    const pick = () => alphabet[Math.floor(random() * alphabet.length)]!;
    const paths = new Set<string>();
    while (paths.size < 1500) {
      let path = '';
      const length = 1 + Math.floor(random() * 40);
      for (let i = 0; i < length; i++) path += pick();
      paths.add(path);
    }
    const sorted = [...paths].sort().map((path) => ({ path }));
    const shuffled = [...sorted].sort(() => random() - 0.5);
    for (const query of ['ab', 'abc', 'AbC', 'a/b', 'x.y', 'éé', '😀a', 'de_x', 'zzzz', 'e-0', 'İx']) {
      const brute = sorted
        .map(({ path }) => ({ path, score: fuzzyPathScore(query, path) }))
        .filter((r): r is { path: string; score: number } => r.score !== undefined)
        .sort(compareRanked);
      expect(rankFuzzyPaths(query, sorted)).toEqual(brute);
      expect(rankFuzzyPaths(query, shuffled)).toEqual(brute);
    }
  });
});

describe('scoreFolded', () => {
  it('is fuzzyPathScore for an already folded query and path', () => {
    for (const [query, path] of [['main', 'src/main.go'], ['fb', 'FooBar.ts'], ['abc', 'qab/c'], ['zz', 'abc']] as const) {
      expect(scoreFolded(foldCase(query), path, foldCase(path))).toBe(fuzzyPathScore(query, path));
    }
  });
});
