import { describe, expect, it } from 'vitest';
import { fuseRanks } from '../../../../core/search/prose/fuse-ranks.ts';

describe('fuseRanks', () => {
  it('sums 1/(60 + rank) over the lists holding a file, best first', () => {
    const fused = fuseRanks(
      [
        { stage: 'text', paths: ['a.c', 'b.c', 'c.c'] },
        { stage: 'bm25', paths: ['c.c', 'a.c'] },
      ],
      { query: 'zzz' },
    );
    expect(fused).toEqual([
      { path: 'a.c', score: 1 / 61 + 1 / 62, ranks: { text: 1, bm25: 2 } },
      { path: 'c.c', score: 1 / 63 + 1 / 61, ranks: { text: 3, bm25: 1 } },
      { path: 'b.c', score: 1 / 62, ranks: { text: 2 } },
    ]);
  });

  it('multiplies by 1.5 for a definition and by 1.25 when a path word starts with a query word', () => {
    const fused = fuseRanks(
      [
        { stage: 'def', paths: ['lib/x.ts'] },
        { stage: 'text', paths: ['lib/other.ts', 'src/UserService.ts', 'lib/x.ts'] },
      ],
      { query: 'getUser', definitions: new Set(['lib/x.ts']) },
    );
    expect(fused).toEqual([
      // (1/61 + 1/63) × 1.5 = 0.04919…; "get" starts no path word, "user" starts "user".
      { path: 'lib/x.ts', score: (1 / 61 + 1 / 63) * 1.5, ranks: { def: 1, text: 3 } },
      { path: 'src/UserService.ts', score: (1 / 62) * 1.25, ranks: { text: 2 } },
      { path: 'lib/other.ts', score: 1 / 61, ranks: { text: 1 } },
    ]);
  });

  it('applies both boosts at once, compares lower-cased, and never boosts on a stop word', () => {
    const fused = fuseRanks([{ stage: 'bm25', paths: ['the/theme.css', 'widgets/Widget.tsx'] }], {
      query: 'the Widget',
      definitions: new Set(['widgets/Widget.tsx']),
    });
    expect(fused).toEqual([
      { path: 'widgets/Widget.tsx', score: (1 / 62) * 1.5 * 1.25, ranks: { bm25: 2 } },
      { path: 'the/theme.css', score: 1 / 61, ranks: { bm25: 1 } },
    ]);
  });

  it('splits path words on / . _ - and case changes, and matches their starts only', () => {
    const fused = fuseRanks([{ stage: 'files', paths: ['src/napi.c', 'src/my_api-v2.c', 'src/myApi.c'] }], { query: 'api' });
    expect(fused.map((f) => [f.path, f.score])).toEqual([
      ['src/my_api-v2.c', (1 / 62) * 1.25],
      ['src/myApi.c', (1 / 63) * 1.25],
      ['src/napi.c', 1 / 61],
    ]);
  });

  it('counts a path listed twice in one list at its first rank', () => {
    expect(fuseRanks([{ stage: 'sem', paths: ['a', 'b', 'a'] }], { query: 'zzz' })).toEqual([
      { path: 'a', score: 1 / 61, ranks: { sem: 1 } },
      { path: 'b', score: 1 / 62, ranks: { sem: 2 } },
    ]);
  });

  it('breaks ties by path in code-unit order and honours another k', () => {
    const fused = fuseRanks(
      [
        { stage: 'text', paths: ['b', 'B'] },
        { stage: 'bm25', paths: ['B', 'b', 'a'] },
        { stage: 'files', paths: ['c'] },
      ],
      { query: 'zzz', k: 1 },
    );
    expect(fused).toEqual([
      { path: 'B', score: 1 / 3 + 1 / 2, ranks: { text: 2, bm25: 1 } },
      { path: 'b', score: 1 / 2 + 1 / 3, ranks: { text: 1, bm25: 2 } },
      { path: 'c', score: 1 / 2, ranks: { files: 1 } },
      { path: 'a', score: 1 / 4, ranks: { bm25: 3 } },
    ]);
    expect(fuseRanks([], { query: 'x' })).toEqual([]);
  });
});
