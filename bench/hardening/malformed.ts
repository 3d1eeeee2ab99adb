/**
 * `npm run soak -- malformed`: ≥ 10 000 malformed requests (test/support/hardening/malformed-requests.ts: every
 * route, every `/ws` command, raw sockets and raw WebSocket frames) against ONE real daemon process, so the memory
 * figures are that process's. Bounds: no 5xx (nor a `/ws` `internal error`, nor a 1011 close), no crash, no
 * `unexpected error` on its stderr, every refusal in its dialect's shape, no request left hanging, and the heap
 * after a forced collection back within HEAP_BOUND of the baseline taken after a warm-up.
 *
 * The seed is printed (and `MALFORMED_SEED=N` replays a run); `--quick` runs ~400 requests to check the harness.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { MalformedTally, runHttpCases, runRawCases, runRawWsCases, runWsFrames } from '../../test/support/hardening/malformed-batches.ts';
import { startMalformedDaemon, type HeapReading, type MalformedDaemon } from '../../test/support/hardening/malformed-daemon-process.ts';
import { anyHttpCase, anyWsFrame, MALFORMED_FIXTURE, type FuzzTarget } from '../../test/support/hardening/malformed-requests.ts';
import { anyRawCase } from '../../test/support/hardening/malformed-wire.ts';
import { rawWsCases } from '../../test/support/hardening/malformed-ws.ts';
import type { HardeningFigure, HardeningOptions, HardeningRun } from './result.ts';

const MiB = 1024 * 1024;
const TOKEN = 'malformed-soak-token';
/**
 * The caps lowered to 1 MiB (same code paths, smaller numbers) so that "one byte over the cap" costs a MiB per
 * case rather than 16 MiB (bodies), 10 GiB (uploads) or 64 MiB (`/ws` frames).
 */
const LIMITS = { maxBodyBytes: MiB, maxUploadBytes: MiB, rpcMaxMessageBytes: MiB };
/**
 * Heap used after a forced collection may end at most this far above the warm baseline. What may legitimately
 * stay: V8's code for paths first taken after the warm-up, the search engine's file list and the change feed
 * for the few files the fuzz writes (FUZZ_PATHS: a fixed, small set of names), and the OS watcher's state.
 * Together a few MiB. A leak of 1 KiB per request would leave ≥ 10 MiB after 10 000 requests: it would show.
 */
const HEAP_BOUND = 8 * MiB;

/** One batch of each kind; the counts of a full run and a quick one. */
interface Mix {
  http: number;
  raw: number;
  frames: number;
  /** Rounds of every raw WebSocket frame case (~30 each). */
  rawWsRounds: number;
}
const FULL: Mix = { http: 1300, raw: 200, frames: 500, rawWsRounds: 2 };
const QUICK: Mix = { http: 250, raw: 40, frames: 100, rawWsRounds: 1 };
const BATCHES = { full: 5, quick: 1 };

export async function runMalformed({ outDir, quick }: HardeningOptions): Promise<HardeningRun> {
  const seed = Number(process.env.MALFORMED_SEED ?? Date.now() % 2 ** 31);
  process.stderr.write(`[malformed] seed ${seed} (replay: MALFORMED_SEED=${seed})\n`);
  const mix = quick ? QUICK : FULL;
  const batches = quick ? BATCHES.quick : BATCHES.full;

  const root = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-malformed-')));
  for (const [path, content] of Object.entries(MALFORMED_FIXTURE)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
  const daemon = await startMalformedDaemon({ root, token: TOKEN, limits: LIMITS });
  const target: FuzzTarget = { token: TOKEN, maxBodyBytes: LIMITS.maxBodyBytes, maxUploadBytes: LIMITS.maxUploadBytes };
  const tally = new MalformedTally();
  const samples: { requests: number; heapUsed: number; rss: number }[] = [];
  let crashes = 0;
  let baseline: HeapReading | undefined;
  let baselineRss = 0;
  try {
    // Warm-up: every kind once, so lazily loaded handlers, JIT code and caches exist before the baseline.
    const warm = new MalformedTally();
    await batch(daemon, target, mix, seed - 1, warm);
    baseline = await daemon.heap();
    baselineRss = await daemon.rss();
    process.stderr.write(`[malformed] warm-up: ${warm.requests} requests; baseline heap ${mb(baseline.heapUsed)} MiB, RSS ${mb(baselineRss)} MiB\n`);

    for (let i = 0; i < batches; i++) {
      const started = performance.now();
      await batch(daemon, target, mix, seed + i, tally);
      // After every batch: the process still runs and still answers.
      if (daemon.exit !== undefined || !(await daemon.healthy())) {
        crashes += 1;
        break;
      }
      const reading = await daemon.heap();
      samples.push({ requests: tally.requests, heapUsed: reading.heapUsed, rss: await daemon.rss() });
      process.stderr.write(
        `[malformed] batch ${i + 1}/${batches}: ${tally.requests} requests, ${tally.fiveHundreds} 5xx, ${tally.shapeViolations} off-shape, ` +
          `${tally.hangs} hangs; heap ${mb(reading.heapUsed)} MiB (${((performance.now() - started) / 1000).toFixed(0)} s)\n`,
      );
    }
  } catch (error) {
    crashes += 1;
    tally.violations.push(`run aborted: ${(error as Error).stack ?? String(error)}`);
  }

  const after = daemon.exit === undefined ? await daemon.heap().catch(() => undefined) : undefined;
  const afterRss = daemon.exit === undefined ? await daemon.rss().catch(() => 0) : 0;
  const exit = daemon.exit;
  const unexpected = [...daemon.unexpectedErrors];
  await daemon.stop();
  await rm(root, { recursive: true, force: true });

  await writeFile(join(outDir, 'malformed-heap.json'), JSON.stringify({ seed, limits: LIMITS, baseline, baselineRss, samples, after, afterRss }, null, 2));
  await writeFile(join(outDir, 'malformed-violations.txt'), [...tally.violations, ...unexpected].join('\n') + '\n');

  const minimum = quick ? 400 : 10_000;
  const heapGrowth = after && baseline ? after.heapUsed - baseline.heapUsed : Number.POSITIVE_INFINITY;
  const figures: HardeningFigure[] = [
    { figure: 'malformed requests sent (one daemon)', value: tally.requests, unit: '', bound: `≥ ${minimum}`, pass: tally.requests >= minimum, note: `seed ${seed}` },
    { figure: '5xx answers (and /ws internal error, 1011 closes)', value: tally.fiveHundreds, unit: '', bound: '= 0', pass: tally.fiveHundreds === 0 },
    { figure: 'crashes (exit, failed /healthz)', value: crashes + (exit === undefined ? 0 : 1), unit: '', bound: '= 0', pass: crashes === 0 && exit === undefined, note: exit },
    { figure: '`unexpected error` lines on stderr', value: unexpected.length, unit: '', bound: '= 0', pass: unexpected.length === 0 },
    { figure: 'refusals not in the dialect shape', value: tally.shapeViolations, unit: '', bound: '= 0', pass: tally.shapeViolations === 0 },
    { figure: 'requests left hanging', value: tally.hangs, unit: '', bound: '= 0', pass: tally.hangs === 0 },
    {
      figure: 'heap used after GC − warm baseline',
      value: heapGrowth / MiB,
      unit: 'MiB',
      bound: `≤ ${HEAP_BOUND / MiB} MiB`,
      pass: heapGrowth <= HEAP_BOUND,
      note: baseline && after ? `${mb(baseline.heapUsed)} → ${mb(after.heapUsed)} MiB` : 'no reading',
    },
    { figure: 'daemon RSS before → after', value: afterRss / MiB, unit: 'MiB', bound: 'reported', pass: true, note: `${mb(baselineRss)} → ${mb(afterRss)} MiB` },
    { figure: 'connections closed without an answer', value: tally.resets, unit: '', bound: 'reported', pass: true, note: 'cut bodies, refusals that close early' },
    { figure: 'refusals without a body (bytes Node\'s parser refuses: 431 headers > 16 KiB, 400 no request)', value: tally.parserRefusals, unit: '', bound: '= 0', pass: tally.parserRefusals === 0, note: 'answered in JSON by runtime/node/node-refusals.ts' },
  ];
  return { name: 'malformed', figures, artifacts: ['malformed-heap.json', 'malformed-violations.txt'] };
}

/** One batch of every kind, the cases drawn from `seed`. */
async function batch(daemon: MalformedDaemon, target: FuzzTarget, mix: Mix, seed: number, tally: MalformedTally): Promise<void> {
  const http = fc.sample(anyHttpCase(target), { seed, numRuns: mix.http });
  const raw = fc.sample(anyRawCase(target.token), { seed, numRuns: mix.raw });
  const frames = fc.sample(anyWsFrame, { seed, numRuns: mix.frames });
  const rawWs = Array.from({ length: mix.rawWsRounds }, () => rawWsCases(LIMITS.rpcMaxMessageBytes)).flat();
  await runHttpCases(daemon.port, http, tally);
  await runRawCases(daemon.port, raw, tally);
  await runWsFrames(daemon.port, target.token, frames, tally);
  await runRawWsCases(daemon.port, target.token, rawWs, tally);
}

const mb = (bytes: number) => (bytes / MiB).toFixed(1);
