/**
 * Where health keeps its per-file figures between daemon runs (Node: a file in the search index's folder,
 * adapters/health/disk-figures-store.ts). Each entry carries the size and mtime the file had when it was measured:
 * after a restart a file is measured again only when its `lstat` says otherwise, so a big tree is not parsed
 * again (the kernel: minutes) just because the daemon restarted.
 */
import type { FileFigures } from './file-figures.ts';

/** Bumped whenever the counting rules or the figures' shape change: a store of another format is ignored. */
export const FIGURES_FORMAT = 1;

export interface StampedFigures extends FileFigures {
  size: number;
  mtimeMs: number;
}

export interface FiguresStore {
  /** The figures saved last, by absolute path; undefined when there are none (or they are of another format). */
  load(): Promise<ReadonlyMap<string, StampedFigures> | undefined>;
  /** Replaces what is saved (atomically: a crash leaves the old or the new). */
  save(figures: ReadonlyMap<string, StampedFigures>): Promise<void>;
}
