/**
 * PageRank over the import graph (docs/intentic-projects.md#health, `modules`): damping 0.85, 20 rounds, from a
 * uniform start. A file that imports nothing (a dangling node) hands its rank to every node evenly, so the ranks
 * always sum to 1. Repeated edges count once; a file importing itself is ignored.
 */
export interface PageRankOptions {
  damping?: number;
  rounds?: number;
}

/** The rank of each node `0 … nodeCount-1`; `edges` are `[from, to]` (from imports to). */
export function pageRank(nodeCount: number, edges: readonly (readonly [number, number])[], options: PageRankOptions = {}): Float64Array {
  const damping = options.damping ?? 0.85;
  const rounds = options.rounds ?? 20;
  let rank = new Float64Array(nodeCount).fill(nodeCount === 0 ? 0 : 1 / nodeCount);
  if (nodeCount === 0) return rank;
  const targets: number[][] = Array.from({ length: nodeCount }, () => []);
  const seen = new Set<string>();
  for (const [from, to] of edges) {
    if (from === to) continue;
    const key = `${from}>${to}`;
    if (seen.has(key)) continue;
    seen.add(key);
    targets[from]!.push(to);
  }
  for (let round = 0; round < rounds; round++) {
    let danglingMass = 0;
    for (let node = 0; node < nodeCount; node++) if (targets[node]!.length === 0) danglingMass += rank[node]!;
    const base = (1 - damping) / nodeCount + (damping * danglingMass) / nodeCount;
    const next = new Float64Array(nodeCount).fill(base);
    for (let node = 0; node < nodeCount; node++) {
      const out = targets[node]!;
      if (out.length === 0) continue;
      const share = (damping * rank[node]!) / out.length;
      for (const to of out) next[to]! += share;
    }
    rank = next;
  }
  return rank;
}
