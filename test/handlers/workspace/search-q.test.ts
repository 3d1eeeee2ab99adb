/**
 * `mode=q`, the default (docs/intentic-search.md#modes): the query is read as a path, an identifier, a
 * regex or prose (first fit wins), and that reading shows in the tags and the order: stages fused by
 * reciprocal rank (k = 60, ×1.5 for a definition, ×1.25 when a path word starts with a query word), hits merged
 * per line with one tag per kind in TAG_ORDER. Fused scores are worked by hand below.
 *
 * Definitions (`def`, symbols) are not wired yet: the identifier here has uses but no definition, so its
 * answer is the same once they are (search-symbols.test.ts holds the `def`-boosted expectations).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../../support/backends.ts';
import { FRESH, searchPair, textHit, type SearchPair } from './search-fixture.ts';

const SEED = {
  'lib/core.ts': 'export const core = 1;\n',
  'lib/core.tsx': '// wraps lib/core.ts\nimport { core } from "lib/core.ts";\n',
  'notes.md': 'see lib/core.ts for details\n',
  'a.ts': 'frobnicate(1);\nconst x = frobnicate(2);\n',
  'b.md': '# Notes\n\nCall frobnicate to frob widgets.\n',
  'src/frob.test.ts': "test('frobs', () => {});\n",
  'src/deep/more/frob.test.ts': '',
  'widget.test.ts': '',
  'docs/guide.md': 'The brass lantern glows whenever the dungeon is dark.\n',
};

const NO_SEM = ['sem: no embeddings endpoint configured'];
const bm25 = { kind: 'bm25', score: expect.any(Number) };
const GUIDE_LINE = 'The brass lantern glows whenever the dungeon is dark.';

describe.each(BACKENDS)('GET /workspace/search mode=q (%s)', (backend) => {
  let pair: SearchPair;
  beforeAll(async () => {
    pair = await searchPair(backend, SEED);
  });
  afterAll(() => pair.cleanup());

  it('is the default mode and echoes q', async () => {
    const asked = await pair.fresh.search({ query: 'lib/core.ts', mode: 'q' });
    expect(await pair.fresh.search({ query: 'lib/core.ts' })).toEqual(asked);
    expect(asked.mode).toBe('q');
  });

  it('a path: fuzzy files fused with the literal text, hits merged per line', async () => {
    // files: lib/core.ts (0.75 + 5/11), lib/core.tsx (0.75 + 5/12); text: lib/core.tsx (2 lines), notes.md (1).
    // RRF: lib/core.tsx 1/62 + 1/61, lib/core.ts 1/61, both ×1.25 (path word `lib`); notes.md 1/62.
    const linesOf = 'import { core } from "lib/core.ts";';
    expect(await pair.both({ query: 'lib/core.ts' })).toEqual({
      mode: 'q',
      total: 4,
      files: 3,
      shown: 4,
      groups: [
        {
          path: 'lib/core.tsx',
          score: 0.040653,
          hits: [
            { line: 1, text: '// wraps lib/core.ts', spans: [{ start: 9, end: 20 }], tags: [{ kind: 'fuzzy', score: 1 }, { kind: 'text' }] },
            textHit(2, linesOf, 'lib/core.ts'),
          ],
        },
        { path: 'lib/core.ts', score: 0.020492, hits: [{ line: 1, text: 'lib/core.ts', spans: [], tags: [{ kind: 'fuzzy', score: 1 }] }] },
        { path: 'notes.md', score: 0.016129, hits: [textHit(1, 'see lib/core.ts for details', 'lib/core.ts')] },
      ],
      freshness: FRESH,
      truncated: false,
    });
  });

  it('a glob path: the files it matches (tag path), shallower first', async () => {
    expect(await pair.both({ query: '*.test.ts' })).toEqual({
      mode: 'q',
      total: 3,
      files: 3,
      shown: 3,
      groups: ['widget.test.ts', 'src/frob.test.ts', 'src/deep/more/frob.test.ts'].map((path, rank) => ({
        path,
        score: 1 / (rank + 1),
        hits: [{ line: 1, text: path, spans: [], tags: [{ kind: 'path' }] }],
      })),
      freshness: FRESH,
      truncated: false,
    });
  });

  it('an identifier: the whole word as text fused with prose (bm25 and text on each line)', async () => {
    // text: a.ts (2 lines), b.md (1); bm25 ranks them the same: a.ts 2/61, b.md 2/62; no path word starts `frobnicate`.
    expect(await pair.fresh.search({ query: 'frobnicate' })).toEqual({
      mode: 'q',
      total: 3,
      files: 2,
      shown: 3,
      groups: [
        {
          path: 'a.ts',
          score: 0.032787,
          hits: [
            { ...textHit(1, 'frobnicate(1);', 'frobnicate'), tags: [bm25, { kind: 'text' }] },
            { ...textHit(2, 'const x = frobnicate(2);', 'frobnicate'), tags: [bm25, { kind: 'text' }] },
          ],
        },
        { path: 'b.md', score: 0.032258, hits: [{ ...textHit(3, 'Call frobnicate to frob widgets.', 'frobnicate'), tags: [bm25, { kind: 'text' }] }] },
      ],
      freshness: FRESH,
      truncated: false,
      features: NO_SEM,
    });
    // Whole words only: `frob` is not `frobnicate`, nor `frobs`.
    const frob = await pair.fresh.search({ query: 'frob' });
    expect(frob.groups.flatMap((group) => group.hits.filter((hit) => hit.spans.length > 0).map((hit) => [group.path, hit.line, hit.spans]))).toEqual([
      ['b.md', 3, [{ start: 19, end: 23 }]],
    ]);
  });

  it('a regex: find alone (text tags only, no prose stage, no features)', async () => {
    expect(await pair.both({ query: 'frob(nicate|s)' })).toEqual({
      mode: 'q',
      total: 4,
      files: 3,
      shown: 4,
      groups: [
        { path: 'a.ts', score: 1, hits: [textHit(1, 'frobnicate(1);', 'frobnicate'), textHit(2, 'const x = frobnicate(2);', 'frobnicate')] },
        { path: 'b.md', score: 0.5, hits: [textHit(3, 'Call frobnicate to frob widgets.', 'frobnicate')] },
        { path: 'src/frob.test.ts', score: 1 / 3, hits: [textHit(1, "test('frobs', () => {});", 'frobs')] },
      ],
      freshness: FRESH,
      truncated: false,
    });
  });

  it('prose (spaces): BM25 lines without spans, sem reported off', async () => {
    expect(await pair.fresh.search({ query: 'brass lantern dark' })).toEqual({
      mode: 'q',
      total: 1,
      files: 1,
      shown: 1,
      groups: [{ path: 'docs/guide.md', score: 1, hits: [{ line: 1, text: GUIDE_LINE, spans: [], tags: [bm25] }] }],
      freshness: FRESH,
      truncated: false,
      features: NO_SEM,
    });
  });

  it('a regex that does not compile reads as prose (no note: prose was the reading)', async () => {
    const answer = await pair.fresh.search({ query: 'lantern(' });
    expect(answer.groups.map((group) => [group.path, group.hits.map((hit) => hit.tags.map((tag) => tag.kind))])).toEqual([['docs/guide.md', [['bm25']]]]);
    expect(answer.note).toBeUndefined();
  });

  it('zero hits outside prose fall back to prose, with the note', async () => {
    expect(await pair.fresh.search({ query: 'nowhere/lantern' })).toEqual({
      mode: 'q',
      total: 1,
      files: 1,
      shown: 1,
      groups: [{ path: 'docs/guide.md', score: 1, hits: [{ line: 1, text: GUIDE_LINE, spans: [], tags: [bm25] }] }],
      freshness: FRESH,
      truncated: false,
      note: 'answered semantically',
      features: NO_SEM,
    });
  });

  it('every zero-hit answer has a hint', async () => {
    expect(await pair.fresh.search({ query: 'qqzzxx' })).toEqual({
      mode: 'q',
      total: 0,
      files: 0,
      shown: 0,
      groups: [],
      freshness: FRESH,
      truncated: false,
      hint: 'no definition, use or mention of that name; check its spelling, or try mode=sym for similar names',
      features: NO_SEM,
    });
    for (const query of ['nothing/here.zz', 'qq+zz', 'zorkmid quetzal', '*.nothing']) {
      const answer = await pair.fresh.search({ query });
      expect(answer.total).toBe(0);
      expect(answer.hint).toEqual(expect.any(String));
      expect(answer.hint!.length).toBeGreaterThan(10);
    }
  });

  it('bm25 scores are 0..1 with two decimals', async () => {
    const answer = await pair.fresh.search({ query: 'frobnicate' });
    for (const tag of answer.groups.flatMap((group) => group.hits.flatMap((hit) => hit.tags))) {
      if (tag.kind !== 'bm25') continue;
      expect(tag.score).toBeGreaterThan(0);
      expect(tag.score).toBeLessThanOrEqual(1);
      expect(Math.round(tag.score! * 100) / 100).toBe(tag.score);
    }
  });
});
