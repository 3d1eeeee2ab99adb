/**
 * Trend of a series sampled over time: the least-squares slope, and the part of a run it is taken over (the
 * warm-up is left out — caches, rings and the heap grow at first by design, and only what follows says leak).
 */

export type Point = readonly [x: number, y: number];

/** The least-squares slope dy/dx of the finite points; NaN with fewer than two distinct x. */
export function leastSquaresSlope(points: readonly Point[]): number {
  const finite = points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  const n = finite.length;
  if (n < 2) return Number.NaN;
  let sumX = 0;
  let sumY = 0;
  for (const [x, y] of finite) {
    sumX += x;
    sumY += y;
  }
  const meanX = sumX / n;
  const meanY = sumY / n;
  let covariance = 0;
  let varianceX = 0;
  for (const [x, y] of finite) {
    covariance += (x - meanX) * (y - meanY);
    varianceX += (x - meanX) ** 2;
  }
  return varianceX === 0 ? Number.NaN : covariance / varianceX;
}

/** The points from `fraction` of the way through the x range on (0.2: the first 20 % of the time discarded). */
export function afterWarmup<T extends Point>(points: readonly T[], fraction: number): T[] {
  if (points.length === 0) return [];
  const first = points[0]![0];
  const last = points[points.length - 1]![0];
  const from = first + (last - first) * fraction;
  return points.filter(([x]) => x >= from);
}

/** Slope per minute of a series whose x is in seconds. */
export function slopePerMinute(points: readonly Point[]): number {
  return leastSquaresSlope(points) * 60;
}
