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
