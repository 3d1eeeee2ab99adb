/**
 * `npm run soak -- soak`: thirty minutes (quick: one; see FULL) of mixed traffic against ONE daemon over a real git
 * repository (lib/soak-traffic.ts: files, searches, terminals, git, change feeds and sockets that come and go),
 * sampling the daemon at rest every 10 s (quick: 2 s; `--minutes N` sets the length): RSS, V8 heap, open fds,
 * descendant processes, inotify watches — and, reported, what the RSS is made of (anonymous and file-backed pages,
 * the heap V8 holds, Buffers) and the thread count. Each series' least-squares slope after the warm-up (the first
 * 20 % of the run) must be ≈ 0, its end no higher than its start plus a small slack, and no operation may fail. One
 * SVG plots every series.
 */
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HardeningFigure, HardeningOptions, HardeningRun } from './result.ts';
import { subscribeChanges, type ChangeFeedClient } from './lib/change-feed-client.ts';
import { startDaemon, type Daemon } from './lib/daemon.ts';
import { Gate } from './lib/gate.ts';
import { figure, info, SERIES_INFO, seriesOf, writeSamplePlot, writeSamplesCsv } from './lib/sample-report.ts';
import { describeDescendants, Sampler } from './lib/sampler.ts';
import { afterWarmup, slopeHolding, slopePerMinute, slopeStandardError } from './lib/slope.ts';
import { Mutex, OPERATION_NAMES, pickOperation, runOperation, type TrafficContext } from './lib/soak-traffic.ts';
import { PathLocks } from './lib/path-locks.ts';
import { Tally } from './lib/tally.ts';
import { makeWorkspace } from './lib/workspace.ts';
import { WsRpc } from './lib/ws-rpc.ts';

interface Plan {
  seconds: number;
  sampleMs: number;
}

/**
 * Thirty minutes, not ten: RSS wanders by ±10 MiB over minutes without growing — V8 grows and shrinks its young
 * generation (the heap it holds swings 35–72 MiB for 27 used), search workers start and stop — and over ten minutes
 * a level that happens to be high near the end tilts the fitted line by up to ~1 MiB/min (ten-minute runs of the
 * same code: −0.1 to 1.1; thirty minutes: 0.00 ± 0.06). Each part's `≈ 0` needs a window that can tell.
 */
const FULL: Plan = { seconds: 1800, sampleMs: 10_000 };
const QUICK: Plan = { seconds: 60, sampleMs: 2000 };
const WORKERS = 4;
/** Pause between one worker's operations: a busy user, not a load test (the clients part is that). */
const PAUSE_MS: [number, number] = [20, 120];
const WARMUP_FRACTION = 0.2;
/** After the gate closes, before the reading: a killed terminal's session is reaped within ~1 s (SIGHUP, SIGKILL). */
const SETTLE_MS = 1500;
const LONG_LIVED_FEEDS = 3;

/**
 * "≈ 0", concretely: per series, the slope bound and the slack the last sample may exceed the first by.
 * fds: even at rest the count moves by a few — a change feed or socket of the traffic still closing, the watcher
 * and the search workers opening a file for a moment — so a series swings by about 5 (53–58 over one ten-minute
 * run) and its fitted slope lands at a few tenths per minute either way by chance. A leak is of another order: the
 * traffic does 400–1 000 operations a minute, so one fd per operation of any kind would be hundreds a minute, one
 * per terminal (≈ 12 % of operations) or per git commit (≈ 2 %) still ten or more. So: the end within 8 of the
 * start, and the fitted slope under 1 fd/min — below the rarest leaking operation, above the noise.
 */
const BOUNDS: Record<'rssMiB' | 'heapUsedMiB' | 'fds' | 'children' | 'inotifyWatches', { slopePerMin: number; endSlack: number; unit: string }> = {
  rssMiB: { slopePerMin: 1, endSlack: 16, unit: 'MiB' },
  heapUsedMiB: { slopePerMin: 1, endSlack: 8, unit: 'MiB' },
  fds: { slopePerMin: 1, endSlack: 8, unit: 'fds' },
  children: { slopePerMin: 0.1, endSlack: 0, unit: 'processes' },
  inotifyWatches: { slopePerMin: 0.1, endSlack: 2, unit: 'watches' },
};

export async function runSoak(options: HardeningOptions): Promise<HardeningRun> {
  const base = options.quick ? QUICK : FULL;
  const plan = options.minutes === undefined ? base : { ...base, seconds: Math.round(options.minutes * 60) };
  const tally = new Tally();
  const workspace = await makeWorkspace({ dirs: 10, filesPerDir: 20, git: true });
  const token = `soak-${process.pid}`;
  let daemon: Daemon | undefined;
  let sampler: Sampler | undefined;
  const sockets: WsRpc[] = [];
  const feeds: ChangeFeedClient[] = [];
  let running = true;
  try {
    daemon = await startDaemon({ root: workspace.root, token, env: { SHELL: '/bin/bash', HOME: workspace.home, ...workspace.gitEnv } });
    const { baseUrl } = daemon;
    const gate = new Gate();
    // A full collection before each reading: the heap series is then what is alive, and a leak shows as a slope.
    const settled = daemon;
    sampler = new Sampler(daemon.pid, () => settled.memory({ gc: 'thorough' }), plan.sampleMs);
    const reading = sampler;

    for (let i = 0; i < LONG_LIVED_FEEDS; i++) feeds.push(subscribeChanges(baseUrl, token, tally));
    await Promise.all(feeds.map((feed) => feed.ready));
    let serial = 0;
    const written = new Set<string>();
    const gitLock = new Mutex();
    const fileLocks = new PathLocks();
    const workFolder = new Gate();
    for (let i = 0; i < WORKERS; i++) {
      const rpc = await WsRpc.connect(baseUrl, token);
      rpc.onUnexpectedClose = (code) => tally.error('long-lived /ws socket closed unexpectedly', `close ${code}`);
      sockets.push(rpc);
    }
    log(`${WORKERS} workers for ${plan.seconds} s, a sample every ${plan.sampleMs / 1000} s at rest`);
    const started = performance.now();
    const workers = sockets.map(async (rpc) => {
      const ctx: TrafficContext = { baseUrl, token, workspace, tally, rpc, written, fileLocks, workFolder, gitLock, serial: () => serial++ };
      while (running) {
        await gate.run(() => runOperation(pickOperation(), ctx));
        await sleep(PAUSE_MS[0] + Math.random() * (PAUSE_MS[1] - PAUSE_MS[0]));
      }
    });

    // Samples at rest: the gate holds the traffic while the daemon is read.
    const cpuStart = process.cpuUsage();
    while (performance.now() - started < plan.seconds * 1000) {
      await gate.hold();
      await sleep(SETTLE_MS);
      await reading.sampleNow();
      gate.release();
      const last = reading.samples[reading.samples.length - 1];
      if (last && reading.samples.length % 6 === 1) {
        log(`t=${last.t.toFixed(0)} s: RSS ${last.rssMiB.toFixed(0)} MiB, heap ${last.heapUsedMiB.toFixed(0)} MiB, fds ${last.fds}, children ${last.children}, watches ${last.inotifyWatches}, ops ${opsDone(tally)}, errors ${tally.errorTotal()}`);
      }
      await sleep(plan.sampleMs - SETTLE_MS);
    }
    running = false;
    await Promise.all(workers);
    const runnerCpu = process.cpuUsage(cpuStart);
    await gate.hold();
    await sleep(SETTLE_MS);
    await reading.sampleNow();
    const samples = reading.samples;
    const restingChildren = await describeDescendants(daemon.pid);

    for (const rpc of sockets) await rpc.close();
    for (const feed of feeds) feed.stop();
    const leftBehind = await daemon.stop();
    const daemonBugs = daemon.stderrLines().filter((line) => /internal error|unexpected error|Error:/.test(line));

    const warmupEnd = samples[0]!.t + (samples[samples.length - 1]!.t - samples[0]!.t) * WARMUP_FRACTION;
    const keys = ['rssMiB', 'heapUsedMiB', 'fds', 'children', 'inotifyWatches'] as const;
    const artifacts = [
      await writeSamplesCsv(options.outDir, 'soak-samples.csv', samples),
      await writeSamplePlot(options.outDir, {
        fileName: 'soak-series.svg',
        title: `Soak: ${plan.seconds} s of mixed traffic on one daemon over a git repository (sampled at rest)`,
        samples,
        // The threads beside RSS: the steps in one are the search workers in the other.
        keys: ['rssMiB', 'threads', 'heapUsedMiB', 'fds', 'children', 'inotifyWatches'],
        marks: [{ name: 'end of warm-up', t: warmupEnd }],
      }),
    ];

    const figures: HardeningFigure[] = [];
    for (const key of keys) {
      const bound = BOUNDS[key];
      const tail = afterWarmup(seriesOf(samples, key), WARMUP_FRACTION);
      const start = tail[0]?.[1] ?? Number.NaN;
      const end = tail[tail.length - 1]?.[1] ?? Number.NaN;
      const title = SERIES_INFO[key].title;
      const spread = `${tail.length} samples; min ${Math.min(...tail.map(([, v]) => v)).toFixed(1)}, max ${Math.max(...tail.map(([, v]) => v)).toFixed(1)}`;
      const slope = slopePerMinute(tail);
      let note = `${spread}; ± ${(slopeStandardError(tail) * 60).toFixed(2)} (standard error)`;
      if (key === 'rssMiB') {
        // The search pools' workers come and go with their idle timers (adapters/search/scan-pool.ts), each an
        // isolate of ~6–9 MiB: RSS moves in steps with the thread count. The trend with the count held constant
        // says whether those steps explain a slope (lib/slope.ts `slopeHolding`).
        const withThreads = afterWarmup(samples.map((s) => [s.t, s.rssMiB, s.threads] as const), WARMUP_FRACTION);
        const threads = withThreads.map(([, , z]) => z);
        note += `; threads ${Math.min(...threads)}–${Math.max(...threads)}, slope with them held constant ${(slopeHolding(withThreads) * 60).toFixed(2)}`;
      }
      figures.push(figure(`${title} slope after warm-up`, slope, `${bound.unit}/min`, `≈ 0: < ${bound.slopePerMin} ${bound.unit}/min`, slope < bound.slopePerMin, note));
      const what = key === 'children' && restingChildren ? `; at the end: ${restingChildren}` : '';
      figures.push(figure(`${title} at the end vs after warm-up`, end, bound.unit, `≤ ${start.toFixed(1)} + ${bound.endSlack}`, end <= start + bound.endSlack, `after warm-up ${start.toFixed(1)}${what}`));
    }
    // What the RSS is made of, reported beside its bound: a slope in the anonymous part with the heap flat is memory
    // outside V8 (malloc, workers' isolates), one in the file-backed part is code paged in, not allocated.
    for (const key of ['rssAnonMiB', 'rssFileMiB', 'heapTotalMiB', 'externalMiB'] as const) {
      const tail = afterWarmup(seriesOf(samples, key), WARMUP_FRACTION);
      const values = tail.map(([, v]) => v);
      figures.push(info(`${SERIES_INFO[key].title} slope after warm-up`, slopePerMinute(tail), 'MiB/min', `min ${Math.min(...values).toFixed(1)}, max ${Math.max(...values).toFixed(1)}`));
    }
    const zombies = Math.max(...samples.map((s) => s.zombies));
    figures.push(figure('zombie descendants at rest (max over the run)', zombies, 'processes', '= 0', zombies === 0));
    const ops = opsDone(tally);
    figures.push(info('operations done', ops, 'ops', OPERATION_NAMES.map((name) => `${name} ${tally.get(`op ${name}`)}`).join(', ')));
    figures.push(figure('operation errors', tally.errorTotal(), 'count', '= 0', tally.errorTotal() === 0, [tally.errorSummary(), ...tally.messages.slice(0, 5)].filter(Boolean).join(' | ') || undefined));
    figures.push(info('this client process CPU', (runnerCpu.user + runnerCpu.system) / 1e6 / plan.seconds, 'cores', `machine load average ${loadavg()[0]!.toFixed(1)} on 2 cores`));
    figures.push(figure("processes left behind by the daemon's shutdown", leftBehind, 'processes', '= 0', leftBehind === 0));
    figures.push(figure('errors the daemon logged (stderr)', daemonBugs.length, 'lines', '= 0', daemonBugs.length === 0, daemonBugs.slice(0, 3).join(' | ') || undefined));
    return { name: 'soak', figures, artifacts };
  } finally {
    running = false;
    await sampler?.stop();
    for (const rpc of sockets) await rpc.close().catch(() => {});
    for (const feed of feeds) feed.stop();
    await daemon?.stop();
    await workspace.remove();
  }
}

function opsDone(tally: Tally): number {
  return OPERATION_NAMES.reduce((total, name) => total + tally.get(`op ${name}`), 0);
}

function log(message: string): void {
  process.stderr.write(`[soak] ${new Date().toISOString().slice(11, 19)} ${message}\n`);
}
