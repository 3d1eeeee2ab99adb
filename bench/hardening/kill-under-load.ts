/**
 * `npm run soak -- kill`: kill -9 under write load, full size — the real daemon takes ≥ 10 000 writes over every
 * write route (ori, Intentic, `/ws`: writes, uploads, moves, copies, zip extractions) while its process group is
 * SIGKILLed 12 times at random points and restarted on the same folder; after every restart the disk, the leftovers
 * sweep, the search index and health are checked (test/support/hardening/kill-run.ts says how). The suite runs the
 * same harness small: test/hardening/kill-under-load.test.ts.
 */
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runKillUnderLoadCycles, type KillRunResult } from '../../test/support/hardening/kill-run.ts';
import type { HardeningFigure, HardeningOptions, HardeningRun } from './result.ts';

export async function runKillUnderLoad(options: HardeningOptions): Promise<HardeningRun> {
  const size = options.quick ? { writes: 1500, kills: 4 } : { writes: 10_000, kills: 12 };
  const work = await realpath(await mkdtemp(join(tmpdir(), 'soak-kill-')));
  const started = performance.now();
  let run: KillRunResult;
  try {
    run = await runKillUnderLoadCycles({
      work,
      seed: 7,
      ...size,
      load: { fileSlots: 300, zipSlots: 30, concurrency: 16, maxWriteBytes: 1_000_000, smallBytes: 64 * 1024 },
      sampledMarkers: 24,
      log: (line) => process.stderr.write(`${line}\n`),
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  const minutes = (performance.now() - started) / 60_000;
  await writeFile(join(options.outDir, 'kill-under-load.json'), JSON.stringify({ ...run, minutes }, null, 2));

  const zero = (figure: string, value: number, unit: string, note?: string): HardeningFigure => ({
    figure, value, unit, bound: '= 0', pass: value === 0, ...(note === undefined ? {} : { note }),
  });
  const restart = median(run.startupMs);
  return {
    name: 'kill',
    artifacts: ['kill-under-load.json'],
    figures: [
      { figure: 'writes attempted', value: run.attempted, unit: 'writes', bound: `≥ ${size.writes}`, pass: run.attempted >= size.writes },
      { figure: 'writes acknowledged', value: run.acknowledged, unit: 'writes', bound: '< attempted', pass: run.acknowledged > 0 && run.acknowledged < run.attempted, note: 'the rest were cut by kills' },
      { figure: 'kills (SIGKILL to the process group)', value: run.kills, unit: 'kills', bound: `= ${size.kills}`, pass: run.kills === size.kills, note: 'no process of the group outlived one' },
      zero('torn or mixed files', run.tornOrMixed, 'files', `over ${run.kills + 1} checks of every file`),
      zero('acknowledged writes lost or rolled back', run.lost + run.wrongVersion, 'files'),
      zero('moves at both names or neither, half copies', run.splitOrPartial, 'cases'),
      zero('files nobody wrote', run.unknownFiles, 'files'),
      zero('leftovers after the restart sweep', run.leftovers, 'entries', `swept ${run.swept.reduce((a, b) => a + b, 0)} in all`),
      zero('index/health vs disk mismatches', run.indexMismatches, 'mismatches', `${run.searches} searches`),
      zero('writes refused by a live daemon', run.refusals.length, 'requests', run.refusals[0]),
      { figure: 'restart time (median)', value: restart, unit: 'ms', bound: '≤ 10 000', pass: restart <= 10_000, note: 'spawn to `listening on`, node --import tsx' },
      // Wall time depends on what else the machine runs: the load average says how shared it was.
      { figure: 'run time', value: minutes, unit: 'min', bound: '≤ 4', pass: options.quick || minutes <= 4, note: `load average ${loadavg()[1]!.toFixed(1)} (5 min) at the end` },
    ],
  };
}

function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)]!);
}
