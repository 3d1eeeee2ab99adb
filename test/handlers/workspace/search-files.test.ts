/**
 * `mode=files` (docs/intentic-search.md#modes): fuzzy, case-insensitive paths, one group per file with
 * one hit `{line: 1, text: path, spans: [], tags: [fuzzy]}`, group score 1/(rank+1), ties by path. The scores
 * below are worked by hand from the formula (each comment shows the sum), never read back from the engine:
 * - a substring: 0.75, + 0.2 if it starts in the base name, + 5/len(path);
 * - else each character left to right, worth 1, + 0.8 right after the previous one, + 0.6 at index 0, after
 *   `/ . _ -` or on a capital; the sum × 0.7 / (2.4 n) × min(1, 20 / max(20, len(path) − n)).
 * The tag shows min(1, score) to two places.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Group } from '../../../core/search/answer.ts';
import { BACKENDS } from '../../support/backends.ts';
import { FRESH, searchPair, type SearchPair } from './search-fixture.ts';

const SEED = {
  'wdgt.md': '',
  'wdgt/wdgt.txt': '',
  'wdgt/readme.txt': '',
  'wdgt-archive-of-old-things/notes.txt': '',
  'wd-gt.txt': '',
  'aWxDyGzT.txt': '',
  'src/w/d/g/t.txt': '',
  'x_w.d-g.t': '',
  'WidgetGadget.ts': '',
  'docs/archive/2019/wide-dog-gate.md': '',
  'notes.md': 'no match: it lacks a w',
  'tdgw.txt': 'no match: the letters are out of order',
};

/** `[path, tag score]` in rank order, as the hand computation ranks them. */
const WDGT: [string, number][] = [
  ['wdgt.md', 1], // substring in the base name: 0.75 + 0.2 + 5/7 = 1.664
  ['wdgt/wdgt.txt', 1], // the last occurrence starts the base name: 0.95 + 5/13 = 1.335
  ['wdgt/readme.txt', 1], // substring outside the base name: 0.75 + 5/15 = 1.083
  ['wdgt-archive-of-old-things/notes.txt', 0.89], // 0.75 + 5/36 = 0.889
  ['wd-gt.txt', 0.5], // w 1+0.6, d 1+0.8, g 1+0.6 (after -), t 1+0.8 = 6.8 → 6.8 × 0.7 / 9.6 = 0.496
  ['aWxDyGzT.txt', 0.47], // four capitals: 4 × 1.6 = 6.4 → 0.467 (a three-way tie, by path)
  ['src/w/d/g/t.txt', 0.47], // four after `/`: 6.4 → 0.467
  ['x_w.d-g.t', 0.47], // after `_ . - .`: 6.4 → 0.467
  ['WidgetGadget.ts', 0.39], // w 1.6 (index 0), d 1, g 1.8 (right after d), t 1 = 5.4 → 0.394
  ['docs/archive/2019/wide-dog-gate.md', 0.22], // w 1.6, d 1, g 1, t 1 = 4.6 → 0.335 × 20/30 = 0.224
];

function filesGroups(ranked: [string, number][]): Group[] {
  return ranked.map(([path, score], rank) => ({
    path,
    score: 1 / (rank + 1),
    hits: [{ line: 1, text: path, spans: [], tags: [{ kind: 'fuzzy', score }] }],
  }));
}

describe.each(BACKENDS)('GET /workspace/search mode=files (%s)', (backend) => {
  let pair: SearchPair;
  beforeAll(async () => {
    pair = await searchPair(backend, SEED);
  });
  afterAll(() => pair.cleanup());

  it('scores and ranks by the formula, ties by path', async () => {
    expect(await pair.both({ query: 'wdgt', mode: 'files' })).toEqual({
      mode: 'files',
      total: 10,
      files: 10,
      shown: 10,
      groups: filesGroups(WDGT),
      freshness: FRESH,
      truncated: false,
    });
  });

  it('is case-insensitive', async () => {
    expect((await pair.both({ query: 'WDGT', mode: 'files' })).groups).toEqual(filesGroups(WDGT));
    expect((await pair.both({ query: 'WdGt', mode: 'files' })).groups).toEqual(filesGroups(WDGT));
  });

  it('ignores literal/word/caseSensitive (they only change find)', async () => {
    const answer = await pair.both({ query: 'WDGT', mode: 'files', caseSensitive: 'true', word: 'true', literal: 'true' });
    expect(answer.groups).toEqual(filesGroups(WDGT));
  });

  it('counts files in total; pages them by limit with the same ranks and scores', async () => {
    const first = await pair.both({ query: 'wdgt', mode: 'files', limit: '4' });
    expect(first).toEqual({
      mode: 'files',
      total: 10,
      files: 10,
      shown: 4,
      groups: filesGroups(WDGT).slice(0, 4),
      freshness: FRESH,
      truncated: true,
      cursor: expect.any(String),
    });
    // Each engine issues its own cursors: page each state with its own.
    const second = await pair.fresh.search({ query: 'wdgt', mode: 'files', limit: '4', after: first.cursor! });
    expect(second.groups).toEqual(filesGroups(WDGT).slice(4, 8));
    const third = await pair.fresh.search({ query: 'wdgt', mode: 'files', limit: '4', after: second.cursor! });
    expect(third).toEqual({
      mode: 'files',
      total: 10,
      files: 10,
      shown: 2,
      groups: filesGroups(WDGT).slice(8),
      freshness: FRESH,
      truncated: false,
    });
  });

  it('answers a query no path holds in order with zero groups and a hint', async () => {
    expect(await pair.both({ query: 'zzwdgt', mode: 'files' })).toEqual({
      mode: 'files',
      total: 0,
      files: 0,
      shown: 0,
      groups: [],
      freshness: FRESH,
      truncated: false,
      hint: 'no path holds those characters in that order; try fewer characters, or mode=find for text',
    });
  });

  it('scores a substring of a whole path, folders included', async () => {
    expect((await pair.both({ query: 'w/d', mode: 'files' })).groups).toEqual(
      filesGroups([
        ['src/w/d/g/t.txt', 1], // the only substring: 0.75 + 5/15 = 1.083
        // w 1.6 (index 0), / 1, d 1 = 3.6 → 3.6 × 0.7 / 7.2 = 0.35, a tie by path; the other paths lack a / after w, or a d after that.
        ['wdgt/readme.txt', 0.35],
        ['wdgt/wdgt.txt', 0.35],
      ]),
    );
  });
});
