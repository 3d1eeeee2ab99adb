/**
 * (g) Keystroke echo latency over loopback: one letter written to an idle `sh` prompt until its echo comes
 * back (bench/lib/echo-probe.ts), through each of OUR terminal transports — an `input` frame on ori
 * `/ws/terminal` and on a named `/terminals/{name}` socket (echo = a binary frame), a `pty_write` request on
 * `/ws` (echo = a `pty-output` event) — timed by this process across the WebSocket hop, vs raw node-pty
 * `write` → `onData` timed inside the anchor child. SAMPLES keystrokes per run, GAP_MS apart (typing, not a
 * paste); RUNS runs, the four sides in turn after one warm-up each. Figures: the median over runs of each
 * run's p50 and p99.
 */
import { startChildServer, startChildWorker } from './lib/child-server.ts';
import { log } from './lib/log.ts';
import { probeEcho } from './lib/echo-probe.ts';
import type { Figure } from './lib/result.ts';
import { median, percentile, sampleRoundRobin } from './lib/stats.ts';
import { openTerminal, TERMINAL_KINDS, TERMINAL_LABELS, type TerminalLink } from './lib/terminal-links.ts';

const RUNS = 5;
const SAMPLES = 200;
const GAP_MS = 5;

export async function benchEcho(root: string, token: string): Promise<Figure[]> {
  const ours = await startChildServer('ours', 'ours', { BENCH_ROOT: root, BENCH_TOKEN: token, SHELL: '/bin/sh' });
  const anchor = await startChildWorker('anchor', 'pty-anchor', { BENCH_ROOT: root, SHELL: '/bin/sh' });
  const links: TerminalLink[] = [];
  try {
    // One shell per transport for every run: a keystroke's path does not depend on the shell's age.
    for (const kind of TERMINAL_KINDS) links.push(await openTerminal(kind, ours.baseUrl, token));
    const measureOurs = links.map((link) => () => probeEcho(link, { samples: SAMPLES, gapMs: GAP_MS }));
    const measureAnchor = async () => {
      const answer = JSON.parse(await anchor.ask(JSON.stringify({ echo: { samples: SAMPLES, gapMs: GAP_MS } }))) as {
        samples?: number[];
        error?: string;
      };
      if (!answer.samples) throw new Error(answer.error ?? 'anchor: no samples');
      return answer.samples;
    };
    const runs = await sampleRoundRobin(RUNS, [...measureOurs, measureAnchor]);
    const sides = [...TERMINAL_KINDS.map((kind) => TERMINAL_LABELS[kind]), 'node-pty anchor'];
    const p = (side: number, q: number) => median(runs[side]!.map((samples) => percentile(samples, q)));
    for (const [i, side] of sides.entries()) {
      const fmt = (q: number) => runs[i]!.map((samples) => percentile(samples, q).toFixed(3)).join(', ');
      log(`echo ${side}: p50 per run [${fmt(50)}] ms, p99 [${fmt(99)}] ms, pooled p99 ${percentile(runs[i]!.flat(), 99).toFixed(3)} ms`);
    }
    const anchorSide = TERMINAL_KINDS.length;
    const figures: Figure[] = [];
    for (const q of [50, 99]) {
      for (const [i, kind] of TERMINAL_KINDS.entries()) {
        figures.push({
          figure: `echo p${q}, ${TERMINAL_LABELS[kind]}`,
          unit: 'ms',
          ours: p(i, q),
          anchor: p(anchorSide, q),
          higherIsBetter: false,
          note: `${SAMPLES} keystrokes × ${RUNS} runs, ${GAP_MS} ms apart; anchor = node-pty write → onData in its own process`,
        });
      }
    }
    return figures;
  } finally {
    await Promise.all(links.map((link) => link.close().catch(() => {})));
    await Promise.all([ours.stop(), anchor.stop()]);
  }
}
