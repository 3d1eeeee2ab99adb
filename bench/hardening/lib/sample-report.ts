/**
 * Turns a run's samples into what the reader gets: the SVG plot (one panel per series, phase marks, bounds as
 * dashed lines) and the raw samples as CSV, both in the run's output folder.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HardeningFigure } from '../result.ts';
import type { Sample } from './sampler.ts';
import { renderPlot, type PlotLine, type PlotPanel } from './svg-plot.ts';

export type SeriesKey = Exclude<keyof Sample, 't'>;

export const SERIES_INFO: Record<SeriesKey, { title: string; unit: string }> = {
  rssMiB: { title: 'RSS', unit: 'MiB' },
  rssAnonMiB: { title: 'RSS anonymous', unit: 'MiB' },
  rssFileMiB: { title: 'RSS file-backed', unit: 'MiB' },
  heapUsedMiB: { title: 'V8 heap used', unit: 'MiB' },
  heapTotalMiB: { title: 'V8 heap held', unit: 'MiB' },
  externalMiB: { title: 'V8 external (Buffers)', unit: 'MiB' },
  fds: { title: 'open file descriptors', unit: 'count' },
  threads: { title: 'threads', unit: 'count' },
  children: { title: 'descendant processes', unit: 'count' },
  zombies: { title: 'zombie descendants', unit: 'count' },
  inotifyWatches: { title: 'inotify watches', unit: 'count' },
};

export function seriesOf(samples: readonly Sample[], key: SeriesKey): [number, number][] {
  return samples.map((sample) => [sample.t, sample[key]]);
}

export interface SamplePlot {
  fileName: string;
  title: string;
  samples: readonly Sample[];
  keys: SeriesKey[];
  marks: { name: string; t: number }[];
  /** Horizontal bounds drawn dashed on a series' panel. */
  bounds?: Partial<Record<SeriesKey, { name: string; value: number }[]>>;
}

export async function writeSamplePlot(outDir: string, plot: SamplePlot): Promise<string> {
  const first = plot.samples[0]?.t ?? 0;
  const last = plot.samples[plot.samples.length - 1]?.t ?? 1;
  const panels: PlotPanel[] = plot.keys.map((key) => {
    const lines: PlotLine[] = [{ name: SERIES_INFO[key].title, points: seriesOf(plot.samples, key) }];
    for (const bound of plot.bounds?.[key] ?? []) {
      lines.push({ name: bound.name, points: [[first, bound.value], [last, bound.value]], dashed: true, color: '#888' });
    }
    return { title: SERIES_INFO[key].title, unit: SERIES_INFO[key].unit, lines };
  });
  await writeFile(
    join(outDir, plot.fileName),
    renderPlot({ title: plot.title, xLabel: 'time since the daemon started (s)', panels, marks: plot.marks.map((mark) => ({ name: mark.name, x: mark.t })) }),
  );
  return plot.fileName;
}

export async function writeSamplesCsv(outDir: string, fileName: string, samples: readonly Sample[]): Promise<string> {
  const keys = Object.keys(SERIES_INFO) as SeriesKey[];
  const rows = [['t', ...keys].join(','), ...samples.map((sample) => [sample.t.toFixed(2), ...keys.map((key) => String(sample[key]))].join(','))];
  await writeFile(join(outDir, fileName), rows.join('\n') + '\n');
  return fileName;
}

/** A figure whose bound is checked here: `pass` says whether `value` met it. */
export function figure(name: string, value: number, unit: string, bound: string, pass: boolean, note?: string): HardeningFigure {
  return { figure: name, value, unit, bound, pass: pass && Number.isFinite(value), ...(note ? { note } : {}) };
}

/** A figure that is reported, not bounded (throughput, latency, counts of work done). */
export function info(name: string, value: number, unit: string, note?: string): HardeningFigure {
  return { figure: name, value, unit, bound: '(reported)', pass: true, ...(note ? { note } : {}) };
}
