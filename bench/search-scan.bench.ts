/**
 * The cold `find` scan (no content index) vs ripgrep, in the same run:
 *
 *   node --import tsx bench/search-scan.bench.ts [tree]     (default /work/corpus/linux-source-6.1)
 *
 * - The file set: `rg --files` in the tree (rg's own defaults: hidden files and .gitignored ones skipped), listed
 *   and stat'ed once, untimed: in the daemon the live file list is already in memory, so ours is timed from the
 *   list to the answer, rg from spawn to exit (its walk and ignore matching included — the work it must do).
 * - Ours: adapters/search/scan-pool.ts (worker threads) over that list, the pool started and warmed once before
 *   timing (the daemon keeps it). The anchor: `rg -l [-i] [-F] -e PATTERN`.
 * - Both sides read from the page cache (a warm-up run each first): "cold" means the index is not built, not that
 *   the disk is.
 * - Correctness, every run: our matched paths must equal rg's, over the files both search. Ours skips files over
 *   1 MiB and files holding a NUL (docs/intentic-search.md); rg searches the former and stops at a NUL in the latter, so
 *   such files (found by an untimed read) are left out of rg's set. A difference fails the bench.
 * - Medians of 5 interleaved runs of wall time, and of CPU time (user + system, every thread: ours from
 *   `process.cpuUsage()` around the scan, rg from `/usr/bin/time`): on a shared, loaded machine the CPU figure is
 *   the steadier one. The per-run samples go to stderr.
 */
import { spawn } from 'node:child_process';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { createScanPool } from '../adapters/search/scan-pool.ts';
import { MAX_SEARCHED_FILE_BYTES } from '../core/search/answer.ts';
import type { FindQuery } from '../core/search/text/find-query.ts';
import type { ScanTarget } from '../core/search/text/scanner.ts';

const RUNS = 5;

interface Case {
  query: FindQuery;
  rgArgs: string[];
}

const CASES: Case[] = [
  { query: { pattern: 'irq_domain_alloc', literal: true, caseSensitive: false, word: false }, rgArgs: ['-i', '-F'] },
  { query: { pattern: 'EXPORT_SYMBOL_GPL', literal: true, caseSensitive: true, word: false }, rgArgs: ['-F'] },
  { query: { pattern: 'irq_domain_(alloc|free)_irqs', literal: false, caseSensitive: false, word: false }, rgArgs: ['-i'] },
  { query: { pattern: 'spin_lock_irq(save)?\\(', literal: false, caseSensitive: true, word: false }, rgArgs: [] },
];

/** Runs the command under `/usr/bin/time`: its output and its CPU time (user + system) in ms. */
function run(command: string, args: string[], cwd: string): Promise<{ out: string; cpuMs: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/time', ['-f', '%U %S', command, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      // rg exits 1 when nothing matches: still a valid run.
      if (code !== 0 && code !== 1) return reject(new Error(`${command} exited ${code}: ${err}`));
      const [user, system] = lines(err).at(-1)!.split(' ').map(Number) as [number, number];
      resolve({ out, cpuMs: (user + system) * 1000 });
    });
  });
}

function lines(out: string): string[] {
  return out.split('\n').filter((line) => line !== '');
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  const tree = realpathSync(process.argv[2] ?? '/work/corpus/linux-source-6.1');
  const listed = lines((await run('rg', ['--files'], tree)).out);
  const files: ScanTarget[] = listed.map((path) => ({ path, absolutePath: join(tree, path), size: statSync(join(tree, path)).size }));
  const skipped = new Set(
    files.filter((file) => file.size > MAX_SEARCHED_FILE_BYTES || readFileSync(file.absolutePath).includes(0)).map((file) => file.path),
  );
  const bytes = files.reduce((sum, file) => sum + file.size, 0);
  console.error(`${files.length} files (${(bytes / 2 ** 20).toFixed(0)} MiB), ${skipped.size} over 1 MiB or binary; ${availableParallelism()} cores`);

  const pool = createScanPool();
  let started = performance.now();
  await pool.scan({ query: CASES[0]!.query, files: files.slice(0, 1) });
  console.error(`pool start ${(performance.now() - started).toFixed(0)} ms`);

  const rows: string[] = [];
  let failed = false;
  for (const { query, rgArgs } of CASES) {
    const rgCommand = ['-l', ...rgArgs, '-e', query.pattern];
    const ours: number[] = [];
    const anchor: number[] = [];
    const oursCpu: number[] = [];
    const anchorCpu: number[] = [];
    let matched = 0;
    for (let round = -1; round < RUNS; round++) {
      started = performance.now();
      const cpu = process.cpuUsage();
      const found = await pool.scan({ query, files });
      const oursMs = performance.now() - started;
      const { user, system } = process.cpuUsage(cpu);
      started = performance.now();
      const rg = await run('rg', rgCommand, tree);
      const rgMs = performance.now() - started;
      const rgFound = lines(rg.out);
      const expected = new Set(rgFound.filter((path) => !skipped.has(path)));
      const missing = [...expected].filter((path) => !found.has(path));
      const extra = [...found.keys()].filter((path) => !expected.has(path));
      if (missing.length + extra.length > 0) {
        failed = true;
        console.error(`MISMATCH ${query.pattern}: missing ${missing.slice(0, 5).join(', ')} (${missing.length}), extra ${extra.slice(0, 5).join(', ')} (${extra.length})`);
      }
      matched = found.size;
      if (round < 0) continue; // warm-up
      ours.push(oursMs);
      anchor.push(rgMs);
      oursCpu.push((user + system) / 1000);
      anchorCpu.push(rg.cpuMs);
      console.error(`  ${query.pattern}: ours ${oursMs.toFixed(0)} ms (cpu ${oursCpu.at(-1)!.toFixed(0)}), rg ${rgMs.toFixed(0)} ms (cpu ${rg.cpuMs.toFixed(0)})`);
    }
    const flags = `${query.literal ? 'literal' : 'regex'}${query.caseSensitive ? '' : ' -i'}`;
    const row = [`find ${JSON.stringify(query.pattern)} (${flags})`, `${median(ours).toFixed(0)} ms`, `rg ${rgCommand.join(' ')}: ${median(anchor).toFixed(0)} ms`, `${(median(ours) / median(anchor)).toFixed(2)}x`,
      `cpu ${median(oursCpu).toFixed(0)} / ${median(anchorCpu).toFixed(0)} ms = ${(median(oursCpu) / median(anchorCpu)).toFixed(2)}x`, `${matched} files`];
    rows.push(row.join(' | '));
  }
  await pool.close();
  console.log('figure | ours (wall) | anchor (wall) | ratio ours/anchor (lower is better) | CPU ours / rg | files matched');
  for (const row of rows) console.log(row);
  if (failed) {
    console.error('FAILED: our file sets differ from rg -l');
    process.exitCode = 1;
  }
}

await main();
