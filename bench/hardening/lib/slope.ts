/**
 * Trend of a series sampled over time: the least-squares slope, and the part of a run it is taken over (the
 * warm-up is left out — caches, rings and the heap grow at first by design, and only what follows says leak).
 */

export type Point = readonly [x: number, y: number];

/** The least-squares line through the finite points: its slope, the points' means, and Σ(x − x̄)². */
function fitLine(points: readonly Point[]): { finite: Point[]; slope: number; meanX: number; meanY: number; varianceX: number } {
  const finite = points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  const n = finite.length;
  const meanX = finite.reduce((sum, [x]) => sum + x, 0) / n;
  const meanY = finite.reduce((sum, [, y]) => sum + y, 0) / n;
  let covariance = 0;
  let varianceX = 0;
  for (const [x, y] of finite) {
    covariance += (x - meanX) * (y - meanY);
    varianceX += (x - meanX) ** 2;
  }
  const slope = n < 2 || varianceX === 0 ? Number.NaN : covariance / varianceX;
  return { finite, slope, meanX, meanY, varianceX };
}

/** The least-squares slope dy/dx of the finite points; NaN with fewer than two distinct x. */
export function leastSquaresSlope(points: readonly Point[]): number {
  return fitLine(points).slope;
}

/** The points from `fraction` of the way through the x range on (0.2: the first 20 % of the time discarded). */
export function afterWarmup<T extends readonly [x: number, ...values: number[]]>(points: readonly T[], fraction: number): T[] {
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

/**
 * The slope dy/dx of `y ≈ a + b·x + c·z` (least squares with a second regressor `z`): the trend in x with z held
 * constant. A series that moves in steps with something known — RSS with the number of worker threads alive, each
 * its own V8 isolate of several MiB, started and stopped by a pool's idle timer — tilts a plain line by whether
 * the last samples happen to fall in a high or a low step; with the step explained by z, b is what is left: a
 * growth that no step accounts for. Where z never changes this is the plain least-squares slope. NaN with too
 * few points, or where x and z move together so that their effects cannot be told apart.
 */
export function slopeHolding(points: readonly (readonly [x: number, y: number, z: number])[]): number {
  const finite = points.filter((p) => p.every(Number.isFinite));
  const n = finite.length;
  if (n < 3) return Number.NaN;
  const mean = (i: 0 | 1 | 2) => finite.reduce((sum, p) => sum + p[i], 0) / n;
  const [mx, my, mz] = [mean(0), mean(1), mean(2)];
  let sxx = 0;
  let sxy = 0;
  let sxz = 0;
  let szz = 0;
  let szy = 0;
  for (const [x, y, z] of finite) {
    const [dx, dy, dz] = [x - mx, y - my, z - mz];
    sxx += dx * dx;
    sxy += dx * dy;
    sxz += dx * dz;
    szz += dz * dz;
    szy += dz * dy;
  }
  if (szz === 0) return sxx === 0 ? Number.NaN : sxy / sxx;
  const determinant = sxx * szz - sxz * sxz;
  // x and z (nearly) collinear: which of them the growth follows cannot be said.
  if (determinant <= 1e-9 * sxx * szz) return Number.NaN;
  return (sxy * szz - szy * sxz) / determinant;
}

/**
 * The standard error of the least-squares slope (same units as the slope): how far the fitted slope of a series
 * that wanders around a flat level lands from 0 by chance. Samples taken 10 s apart are not independent (a level
 * lasts minutes), so the true uncertainty is larger; read it as a floor — a window whose error is near the bound
 * cannot decide it.
 */
export function slopeStandardError(points: readonly Point[]): number {
  const { finite, slope, meanX, meanY, varianceX } = fitLine(points);
  if (finite.length < 3 || !Number.isFinite(slope)) return Number.NaN;
  let residuals = 0;
  for (const [x, y] of finite) residuals += (y - meanY - slope * (x - meanX)) ** 2;
  return Math.sqrt(residuals / (finite.length - 2) / varianceX);
}
