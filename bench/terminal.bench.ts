/**
 * (d) Terminal output throughput: a shell printing a lot through each of OUR three terminal transports
 * (bench/lib/terminal-links.ts: ori `/ws/terminal`, a named `/terminals/{name}` socket, the `/ws` protocol's
 * `pty_spawn` + `pty-output` events) vs raw node-pty (`encoding: null`) reading the same shell's output in its
 * own child process (bench/servers/pty-anchor.ts). Every run: a fresh `/bin/sh`, 80×24,
 * TERM=xterm-256color; the clock starts as the command is written (after the first prompt) and stops at the
 * literal `BENCH-DONE-42`. Bytes are counted, never decoded (the `/ws` events are text: their UTF-8 length).
 * Figures = medians of RUNS runs, the four sides in turn after one warm-up each: MiB/s; CPU time per MiB (ours:
 * server child + this client, from /proc and process.cpuUsage; the anchor: its child's own) — the steadier
 * number on a shared machine; and each side's peak resident memory during its runs (VmHWM of the server
 * child / the anchor child, reset before every run).
 *
 * The output: `BENCH_TERMINAL_OUTPUT=tr` (default) is 64 MiB of `a` without newlines; `=base64` is the heavier case
 * `head -c 200M /dev/zero | base64` (≈ 270 MiB in 77-byte lines, which the tty turns into CRLF: the kernel's
 * output processing makes it ~3x slower per byte on every side — about 20 s a run here, 8 min for the set).
 */
import { startChildServer, startChildWorker, type ChildServer } from './lib/child-server.ts';
import { log } from './lib/log.ts';
import { MarkerScanner } from './lib/marker.ts';
import { memoryKiB, resetPeakRss } from './lib/proc-memory.ts';
import { processCpuMs } from './lib/process-cpu.ts';
import type { Figure } from './lib/result.ts';
import { median, sampleRoundRobin } from './lib/stats.ts';
import { openTerminal, TERMINAL_KINDS, TERMINAL_LABELS, type TerminalKind, type TerminalLink } from './lib/terminal-links.ts';

const RUNS = 5;
const MiB = 1024 * 1024;
const MARKER = 'BENCH-DONE-42';

export interface Workload {
  label: string;
  /** The echoed command line shows `$((40+2))`, never `42`: only the real output matches the marker. */
  command: string;
  /** Fewer bytes than this before the marker means output went missing. */
  minBytes: number;
  timeoutMs: number;
}

export const WORKLOADS: Record<string, Workload> = {
  // `tr` because `head -c` of /dev/zero gives NULs.
  tr: {
    label: '64 MiB',
    command: `head -c ${64 * MiB} /dev/zero | tr '\\0' a; echo BENCH-DONE-$((40+2))`,
    minBytes: 64 * MiB,
    timeoutMs: 60_000,
  },
  base64: {
    label: 'base64 of 200 MiB',
    command: `head -c ${200 * MiB} /dev/zero | base64; echo BENCH-DONE-$((40+2))`,
    minBytes: (200 * MiB * 4) / 3,
    timeoutMs: 240_000,
  },
};

interface RunResult {
  bytes: number;
  ms: number;
}

interface Sample {
  mibps: number;
  /** CPU time per MiB of output: ours = server child + this client process; the anchor = its child. */
  cpuMsPerMiB: number;
  /** Ours only: the server child's share of `cpuMsPerMiB`. */
  serverCpuMsPerMiB?: number;
  /** Peak resident set during the run, and the resident set when it started (MiB). */
  peakMiB: number;
  startMiB: number;
}

function checkBytes(name: string, workload: Workload, { bytes }: RunResult): void {
  if (bytes < workload.minBytes) throw new Error(`${name}: only ${bytes} bytes before ${MARKER}`);
}

const mibOf = (bytes: number) => bytes / MiB;

/** Writes the command on an open link and counts output bytes until the marker. */
export function runOnLink(name: string, link: TerminalLink, workload: Workload): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const scanner = new MarkerScanner(MARKER);
    let bytes = 0;
    let done = false;
    const timer = setTimeout(() => {
      done = true;
      reject(new Error(`${name}: no ${MARKER} within ${workload.timeoutMs} ms (${bytes} bytes)`));
    }, workload.timeoutMs);
    link.listen((chunk, size) => {
      if (done) return;
      bytes += size;
      if (!(typeof chunk === 'string' ? scanner.pushText(chunk) : scanner.push(chunk))) return;
      done = true;
      clearTimeout(timer);
      resolve({ bytes, ms: performance.now() - started });
    });
    const started = performance.now();
    link.write(workload.command + '\r');
  });
}

/** Runs `measure` between a peak reset and a peak read of process `pid`; false when the reset was refused. */
async function withPeak(pid: number, measure: () => Promise<Omit<Sample, 'peakMiB' | 'startMiB'>>): Promise<[Sample, boolean]> {
  const resetOk = await resetPeakRss(pid);
  const startKiB = await memoryKiB(pid, 'VmRSS');
  const sample = await measure();
  return [{ ...sample, peakMiB: (await memoryKiB(pid, 'VmHWM')) / 1024, startMiB: startKiB / 1024 }, resetOk];
}

/** One run through our server: a fresh terminal of `kind`, the command, bytes until the marker, `exit`. */
async function runOurs(kind: TerminalKind, server: ChildServer, token: string, workload: Workload) {
  const link = await openTerminal(kind, server.baseUrl, token);
  try {
    const serverBefore = processCpuMs(server.pid) ?? Number.NaN;
    const clientBefore = process.cpuUsage();
    const run = await runOnLink(kind, link, workload);
    const client = process.cpuUsage(clientBefore);
    const serverMs = (processCpuMs(server.pid) ?? Number.NaN) - serverBefore;
    checkBytes(kind, workload, run);
    const mib = mibOf(run.bytes);
    return {
      mibps: mib / (run.ms / 1000),
      cpuMsPerMiB: (serverMs + (client.user + client.system) / 1000) / mib,
      serverCpuMsPerMiB: serverMs / mib,
    };
  } finally {
    await link.close();
  }
}

export async function benchTerminal(root: string, token: string): Promise<Figure[]> {
  const workloadName = process.env.BENCH_TERMINAL_OUTPUT ?? 'tr';
  const workload = WORKLOADS[workloadName];
  if (!workload) throw new Error(`BENCH_TERMINAL_OUTPUT must be one of ${Object.keys(WORKLOADS).join(', ')}`);
  // SHELL=/bin/sh makes sh our server's default shell (no bash rc files); the anchor spawns /bin/sh itself.
  const ours = await startChildServer('ours', 'ours', { BENCH_ROOT: root, BENCH_TOKEN: token, SHELL: '/bin/sh' });
  const anchor = await startChildWorker('anchor', 'pty-anchor', { BENCH_ROOT: root, SHELL: '/bin/sh' });
  let peakResetRefused = false;
  const peaked = async (pid: number, measure: () => Promise<Omit<Sample, 'peakMiB' | 'startMiB'>>) => {
    const [sample, resetOk] = await withPeak(pid, measure);
    peakResetRefused ||= !resetOk;
    return sample;
  };
  try {
    const measureOurs = TERMINAL_KINDS.map((kind) => () => peaked(ours.pid, () => runOurs(kind, ours, token, workload)));
    const measureAnchor = () =>
      peaked(anchor.pid, async () => {
        const answer = JSON.parse(await anchor.ask(JSON.stringify({ command: workload.command, marker: MARKER }))) as RunResult & {
          cpuMs: number;
          error?: string;
        };
        if (answer.error) throw new Error(answer.error);
        checkBytes('anchor', workload, answer);
        const mib = mibOf(answer.bytes);
        return { mibps: mib / (answer.ms / 1000), cpuMsPerMiB: answer.cpuMs / mib };
      });
    const samples = await sampleRoundRobin(RUNS, [...measureOurs, measureAnchor]);
    const anchorSamples = samples[TERMINAL_KINDS.length]!;
    const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
    const fmt1 = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(', ');
    const sides = [...TERMINAL_KINDS.map((kind) => TERMINAL_LABELS[kind]), 'node-pty anchor'];
    for (const [i, side] of sides.entries()) {
      const runs = samples[i]!;
      const server = runs[0]!.serverCpuMsPerMiB === undefined ? '' : ` (server [${fmt1(runs.map((s) => s.serverCpuMsPerMiB!))}])`;
      log(
        `terminal ${workload.label} ${side}: [${fmt(runs.map((s) => s.mibps))}] MiB/s; ` +
          `CPU [${fmt1(runs.map((s) => s.cpuMsPerMiB))}] ms/MiB${server}; ` +
          `peak RSS [${fmt(runs.map((s) => s.peakMiB))}] MiB from [${fmt(runs.map((s) => s.startMiB))}] MiB at the run's start`,
      );
    }
    const peak = (runs: Sample[]) => Math.max(...runs.map((s) => s.peakMiB));
    const growth = (runs: Sample[]) => median(runs.map((s) => s.peakMiB - s.startMiB));
    const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;
    const figures: Figure[] = [];
    for (const [i, kind] of TERMINAL_KINDS.entries()) {
      const runs = samples[i]!;
      figures.push({
        figure: `terminal output ${workload.label}, ${TERMINAL_LABELS[kind]}`,
        unit: 'MiB/s',
        ours: median(runs.map((s) => s.mibps)),
        anchor: median(anchorSamples.map((s) => s.mibps)),
        higherIsBetter: true,
      });
    }
    for (const [i, kind] of TERMINAL_KINDS.entries()) {
      const runs = samples[i]!;
      figures.push({
        figure: `terminal CPU per MiB, ${TERMINAL_LABELS[kind]}`,
        unit: 'ms',
        ours: median(runs.map((s) => s.cpuMsPerMiB)),
        anchor: median(anchorSamples.map((s) => s.cpuMsPerMiB)),
        higherIsBetter: false,
        note: `server + client (server alone ${median(runs.map((s) => s.serverCpuMsPerMiB!)).toFixed(1)}) vs the anchor's process; all threads`,
      });
    }
    for (const [i, kind] of TERMINAL_KINDS.entries()) {
      const runs = samples[i]!;
      figures.push({
        figure: `terminal peak RSS, ${TERMINAL_LABELS[kind]}`,
        unit: 'MiB',
        ours: peak(runs),
        anchor: peak(anchorSamples),
        higherIsBetter: false,
        note:
          `daemon vs the anchor's node process; median growth during a run ${signed(growth(runs))} vs ` +
          `${signed(growth(anchorSamples))} MiB${peakResetRefused ? ' (clear_refs refused: peaks since start-up)' : ''}`,
      });
    }
    return figures;
  } finally {
    await Promise.all([ours.stop(), anchor.stop()]);
  }
}
