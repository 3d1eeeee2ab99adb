/**
 * `mode=files` builds only the groups a page shows, and orders the ranking only as far as the page reaches
 * (core/search/paths/rank-fuzzy-paths.ts). Over a generated tree big enough for the answer cache to give up on
 * the set (more than 2000 groups: every page recomputes it), paging with cursors through Intentic's client must
 * give exactly the ranking of scoring every path by the formula: the same order, scores, `total` and `files` on
 * every page, across the boundary between substring and ordered-characters matches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Group, SearchAnswer } from '../../../core/search/answer.ts';
import { tagScore } from '../../../core/search/answer.ts';
import { fuzzyPathScore } from '../../../core/search/paths/fuzzy-path-score.ts';
import type { Seed } from '../../support/backends.ts';
import { seededRandom } from '../../core/text/generators.ts';
import { openSearch, type SearchFixture } from './search-fixture.ts';

/** 2400 files: folders and names from a small alphabet, so `b.` is a substring of some and scattered in most. */
function generatedSeed(): Seed {
  const random = seededRandom(5);
  const word = (alphabet: string) => {
    let out = '';
    const length = 1 + Math.floor(random() * 5);
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length)]!;
    return out;
  };
  const seed: Seed = {};
  while (Object.keys(seed).length < 2400) {
    const parts = Array.from({ length: 1 + Math.floor(random() * 3) }, () => word('abcdAB_-'));
    seed[`${parts.join('/')}/${word('abcxyB.')}.txt`] = '';
  }
  return seed;
}

/** The whole answer as docs/intentic-search.md's formula ranks it: every path scored, best first, ties by path. */
function expectedGroups(query: string, paths: readonly string[]): Group[] {
  return paths
    .map((path) => ({ path, score: fuzzyPathScore(query, path) }))
    .filter((r): r is { path: string; score: number } => r.score !== undefined)
    .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map(({ path, score }, rank) => ({
      path,
      score: 1 / (rank + 1),
      hits: [{ line: 1, text: path, spans: [], tags: [{ kind: 'fuzzy', score: tagScore(score) }] }],
    }));
}

// MemoryFileSystem only: the ranking reads the live file list, never the disk, and writing 2400 files into a temp
// folder takes the Node backend seconds (test/handlers/workspace/search-files.test.ts runs the formula over both).
describe('mode=files pages of a big set (memory)', () => {
  const seed = generatedSeed();
  const paths = Object.keys(seed);
  let ws: SearchFixture;
  beforeAll(async () => {
    // No content index: `files` mode never reads one, and building it would be most of this file's time.
    ws = await openSearch('memory', seed, { search: { index: false } });
  });
  afterAll(() => ws.cleanup());

  it('pages through the whole ranking with cursors: same groups, total and files on every page', async () => {
    for (const query of ['b.', 'B.', 'ab', 'a_b', 'a/b']) {
      const whole = expectedGroups(query, paths);
      const substrings = whole.filter((group) => group.path.toLowerCase().includes(query.toLowerCase())).length;
      // Both kinds of match (and, for `b.`, more groups than the answer cache keeps).
      expect(substrings).toBeGreaterThan(0);
      expect(whole.length).toBeGreaterThan(substrings);
      const seen: Group[] = [];
      let answer: SearchAnswer = await ws.search({ query, mode: 'files', limit: '150' });
      for (;;) {
        expect({ total: answer.total, files: answer.files, shown: answer.shown }).toEqual({
          total: whole.length,
          files: whole.length,
          shown: answer.groups.length,
        });
        seen.push(...answer.groups);
        if (!answer.truncated) break;
        answer = await ws.search({ query, mode: 'files', limit: '150', after: answer.cursor! });
      }
      expect(seen).toEqual(whole);
    }
    expect(expectedGroups('b.', paths).length).toBeGreaterThan(2000);
  });

  it('a first page is the top of the ranking, whatever the case of the query', async () => {
    const whole = expectedGroups('b.', paths);
    for (const query of ['b.', 'B.']) {
      const answer = await ws.search({ query, mode: 'files', limit: '50' });
      expect(answer).toEqual({
        mode: 'files',
        total: whole.length,
        files: whole.length,
        shown: 50,
        groups: whole.slice(0, 50),
        freshness: { state: 'fresh' },
        truncated: true,
        cursor: expect.any(String),
      });
    }
  });
});
