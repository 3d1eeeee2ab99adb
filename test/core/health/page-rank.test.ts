/** PageRank (core/health/page-rank.ts): damping 0.85, 20 rounds, dangling rank spread evenly; exact on tiny graphs. */
import { describe, expect, it } from 'vitest';
import { pageRank } from '../../../core/health/page-rank.ts';

/** An independent reference: the dense Google matrix (dangling rows uniform), 20 multiplications from uniform. */
function denseReference(n: number, edges: [number, number][], rounds = 20, d = 0.85): number[] {
  const out = Array.from({ length: n }, () => new Set<number>());
  for (const [from, to] of edges) if (from !== to) out[from]!.add(to);
  const google = Array.from({ length: n }, (_, i) =>
    Array.from({ length: n }, (_, j) => (1 - d) / n + d * (out[i]!.size === 0 ? 1 / n : out[i]!.has(j) ? 1 / out[i]!.size : 0)),
  );
  let rank = Array<number>(n).fill(1 / n);
  for (let r = 0; r < rounds; r++) rank = rank.map((_, j) => rank.reduce((sum, value, i) => sum + value * google[i]![j]!, 0));
  return rank;
}

const close = (actual: Float64Array, expected: number[]) => {
  expect(actual.length).toBe(expected.length);
  expected.forEach((value, i) => expect(Math.abs(actual[i]! - value)).toBeLessThan(1e-9));
};

describe('pageRank', () => {
  it('A → B with B dangling: one and two rounds by hand', () => {
    // Round 1 from [0.5, 0.5]: A = 0.15/2 + 0.85·0.5/2 = 0.2875; B = 0.2875 + 0.85·0.5 = 0.7125.
    close(pageRank(2, [[0, 1]], { rounds: 1 }), [0.2875, 0.7125]);
    // Round 2: A = 0.075 + 0.85·0.7125/2 = 0.3778125; B = 0.3778125 + 0.85·0.2875 = 0.6221875.
    close(pageRank(2, [[0, 1]], { rounds: 2 }), [0.3778125, 0.6221875]);
  });

  it('a cycle stays uniform; repeated edges and self-imports count as nothing more', () => {
    close(pageRank(3, [[0, 1], [1, 2], [2, 0], [2, 0], [1, 1]]), [1 / 3, 1 / 3, 1 / 3]);
  });

  it('20 rounds at 0.85 on a small import graph equal the dense Google-matrix iteration', () => {
    const edges: [number, number][] = [[0, 1], [0, 2], [1, 2], [3, 2], [3, 0], [4, 3]];
    const ranks = pageRank(5, edges);
    close(ranks, denseReference(5, edges));
    expect(ranks.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    // The most imported file ranks first.
    expect([...ranks].indexOf(Math.max(...ranks))).toBe(2);
  });

  it('no nodes: no ranks', () => {
    expect(pageRank(0, [])).toEqual(new Float64Array(0));
  });
});
