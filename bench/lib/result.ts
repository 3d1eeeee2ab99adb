/** One row of the final table. */
export interface Figure {
  figure: string;
  unit: string;
  ours: number;
  anchor: number;
  /** Whether a larger number is better (throughput, rps) or a smaller one (latency). */
  higherIsBetter: boolean;
  note?: string;
}
