/** One measured claim of `npm run soak`: a value, the bound it must meet, and whether it did. */
export interface HardeningFigure {
  figure: string;
  value: number;
  unit: string;
  /** The bound as a reader would say it: "= 0", "≤ 512 MiB", "≈ 0 (|slope| < 1 MiB/min)". */
  bound: string;
  pass: boolean;
  note?: string;
}

export interface HardeningRun {
  /** Which part: fuzz-paths | malformed | kill | clients | soak. */
  name: string;
  figures: HardeningFigure[];
  /** Files written for the reader (plots, samples), relative to the output folder. */
  artifacts?: string[];
}

export interface HardeningOptions {
  /** Where plots and raw samples go (created by the runner): `.bench-cache/hardening/<run>`. */
  outDir: string;
  /** Smaller counts and durations, for checking the harness itself (`npm run soak -- --quick`). */
  quick: boolean;
  /** A longer (or shorter) run than the part's own, where it has a duration (`--minutes N`: the soak). */
  minutes?: number;
}
