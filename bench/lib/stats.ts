export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Runs `measure` once to warm up (discarded), then `runs` times; returns every sample. */
export async function sample(runs: number, measure: () => Promise<number>, warmups = 1): Promise<number[]> {
  for (let i = 0; i < warmups; i++) await measure();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push(await measure());
  return samples;
}

export function nowMs(): number {
  return performance.now();
}

/**
 * Ours and the anchor measured alternately (ours, anchor, ours, …) after one warm-up each, so drift on a
 * shared machine hits both alike. Returns every sample of each side.
 */
export async function sampleInterleaved(
  runs: number,
  measureOurs: () => Promise<number>,
  measureAnchor: () => Promise<number>,
): Promise<{ ours: number[]; anchor: number[] }> {
  await measureOurs();
  await measureAnchor();
  const ours: number[] = [];
  const anchor: number[] = [];
  for (let i = 0; i < runs; i++) {
    ours.push(await measureOurs());
    anchor.push(await measureAnchor());
  }
  return { ours, anchor };
}

/** The `p`-th percentile (0–100) by nearest rank: p99 of 200 samples is the 198th smallest. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

/**
 * Several sides measured in turn (a, b, c, a, b, c, …) after one warm-up each, so drift on a shared machine
 * hits every side alike: the many-sided `sampleInterleaved`. Returns each side's samples, in input order.
 */
export async function sampleRoundRobin<T>(runs: number, measures: (() => Promise<T>)[]): Promise<T[][]> {
  for (const measure of measures) await measure();
  const samples = measures.map(() => [] as T[]);
  for (let i = 0; i < runs; i++) {
    for (const [side, measure] of measures.entries()) samples[side]!.push(await measure());
  }
  return samples;
}
