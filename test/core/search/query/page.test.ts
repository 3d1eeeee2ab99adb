import { describe, expect, it } from 'vitest';
import type { Group } from '../../../../core/search/answer.ts';
import { takePage } from '../../../../core/search/query/page.ts';
import { mergeHits, mergeTags } from '../../../../core/search/query/merge-hits.ts';

const group = (path: string, hits: number): Group => ({
  path,
  score: 1,
  hits: Array.from({ length: hits }, (_, i) => ({ line: i + 1, text: 'x', spans: [], tags: [{ kind: 'text' }] })),
});

describe('takePage', () => {
  it('takes whole groups up to the limit', () => {
    const ranked = [group('a', 1), group('b', 1), group('c', 1)];
    expect(takePage(ranked, 0, 2)).toMatchObject({ shown: 2, next: 2, groups: [{ path: 'a' }, { path: 'b' }] });
    expect(takePage(ranked, 2, 2)).toMatchObject({ shown: 1, next: 3, groups: [{ path: 'c' }] });
    expect(takePage(ranked, 3, 2)).toEqual({ shown: 0, next: 3, groups: [] });
  });

  it('stops before the group that would pass 1000 hits, but always takes the first', () => {
    const ranked = [group('a', 50), ...Array.from({ length: 19 }, (_, i) => group(`b${i}`, 50)), group('c', 1)];
    // 20 groups of 50 = exactly 1000: taken; the next one (1 hit) would pass it.
    expect(takePage(ranked, 0, 300)).toMatchObject({ shown: 1000, next: 20 });
    const huge = [group('x', 1200), group('y', 1)];
    expect(takePage(huge, 0, 300)).toMatchObject({ shown: 1200, next: 1 });
  });
});

describe('mergeHits', () => {
  it('keeps one hit per line in line order, with spans united and tags in TAG_ORDER', () => {
    const merged = mergeHits(
      [{ line: 3, text: 'const a = b', spans: [{ start: 6, end: 7 }], tags: [{ kind: 'text' }] }],
      [
        { line: 1, text: 'first', spans: [], tags: [{ kind: 'bm25', score: 0.4 }] },
        { line: 3, text: 'const a = b', spans: [{ start: 10, end: 11 }], tags: [{ kind: 'def' }] },
      ],
    );
    expect(merged).toEqual([
      { line: 1, text: 'first', spans: [], tags: [{ kind: 'bm25', score: 0.4 }] },
      { line: 3, text: 'const a = b', spans: [{ start: 6, end: 7 }, { start: 10, end: 11 }], tags: [{ kind: 'def' }, { kind: 'text' }] },
    ]);
  });

  it('takes the text of the hit with spans when two stages show a line differently', () => {
    const merged = mergeHits(
      [{ line: 1, text: 'src/a.ts', spans: [], tags: [{ kind: 'fuzzy', score: 0.5 }] }],
      [{ line: 1, text: 'import x', spans: [{ start: 0, end: 6 }], tags: [{ kind: 'text' }] }],
    );
    expect(merged).toEqual([{ line: 1, text: 'import x', spans: [{ start: 0, end: 6 }], tags: [{ kind: 'fuzzy', score: 0.5 }, { kind: 'text' }] }]);
  });

  it('keeps the higher score of a kind', () => {
    expect(mergeTags([{ kind: 'bm25', score: 0.2 }], [{ kind: 'bm25', score: 0.7 }, { kind: 'def' }])).toEqual([{ kind: 'def' }, { kind: 'bm25', score: 0.7 }]);
  });
});
