/**
 * `npm run soak` — the long hardening runs (fuzzing by the hundred thousand, kill -9 under write load, a thousand
 * clients, a thirty-minute soak). Each part prints its figures with the bound it must meet; the exit code is non-zero
 * when any figure misses its bound. Not part of CI or `npm test`: the suite runs the same harnesses with small
 * counts (test/hardening/). README's "Reliability" section quotes these figures.
 *
 *   node --import tsx bench/hardening/run.ts [fuzz-paths] [malformed] [kill] [clients] [soak] [--quick] [--minutes N]
 *   (default: all of them, in that order; `--minutes` sets the soak's length, default 30)
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { HardeningFigure, HardeningOptions, HardeningRun } from './result.ts';

type Part = (options: HardeningOptions) => Promise<HardeningRun>;

/** Loaded on demand, so one part's imports never slow another's start. */
const PARTS: Record<string, () => Promise<Part>> = {
  'fuzz-paths': async () => (await import('./fuzz-paths.ts')).runPathFuzz,
  malformed: async () => (await import('./malformed.ts')).runMalformed,
  kill: async () => (await import('./kill-under-load.ts')).runKillUnderLoad,
  clients: async () => (await import('./thousand-clients.ts')).runThousandClients,
  soak: async () => (await import('./soak.ts')).runSoak,
};

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const minutesAt = args.indexOf('--minutes');
const minutes = minutesAt === -1 ? undefined : Number(args[minutesAt + 1]);
if (minutes !== undefined && !(minutes > 0 && minutes <= 24 * 60)) {
  process.stderr.write('--minutes takes a number of minutes, more than 0 and at most 1440\n');
  process.exit(2);
}
if (minutesAt !== -1) args.splice(minutesAt, 2);
const unknown = args.filter((arg) => arg !== '--quick' && !(arg in PARTS));
if (unknown.length > 0) {
  process.stderr.write(`unknown part(s): ${unknown.join(', ')}; known: ${Object.keys(PARTS).join(', ')}\n`);
  process.exit(2);
}
const chosen = args.filter((arg) => arg in PARTS);
const names = chosen.length > 0 ? chosen : Object.keys(PARTS);

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const results: HardeningRun[] = [];
for (const name of names) {
  const outDir = resolve('.bench-cache', 'hardening', `${stamp}-${name}`);
  await mkdir(outDir, { recursive: true });
  process.stderr.write(`[soak] ${name}${quick ? ' (quick)' : ''} → ${outDir}\n`);
  const started = performance.now();
  const part = await PARTS[name]!();
  const run = await part({ outDir, quick, ...(minutes === undefined ? {} : { minutes }) });
  process.stderr.write(`[soak] ${name} took ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  results.push(run);
  printRun(run, outDir);
}

const failed = results.flatMap((run) => run.figures.filter((figure) => !figure.pass).map((figure) => `${run.name}: ${figure.figure}`));
if (failed.length > 0) {
  process.stdout.write(`\nMISSED ${failed.length} bound(s):\n${failed.map((line) => `  ${line}`).join('\n')}\n`);
  process.exit(1);
}
process.stdout.write('\nevery figure met its bound\n');

function printRun(run: HardeningRun, outDir: string): void {
  const rows = run.figures.map((f: HardeningFigure) => [f.pass ? 'ok' : 'MISS', f.figure, `${formatValue(f.value)} ${f.unit}`, f.bound, f.note ?? '']);
  const widths = [0, 1, 2, 3].map((column) => Math.max(...rows.map((row) => row[column]!.length)));
  process.stdout.write(`\n## ${run.name}\n`);
  for (const row of rows) process.stdout.write(`${row.map((cell, i) => (i < 4 ? cell.padEnd(widths[i]!) : cell)).join('  ').trimEnd()}\n`);
  for (const artifact of run.artifacts ?? []) process.stdout.write(`  → ${join(outDir, artifact)}\n`);
}

function formatValue(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value)) return String(value);
  return Math.abs(value) >= 100 ? value.toFixed(0) : Math.abs(value) >= 1 ? value.toFixed(1) : value.toFixed(3);
}
