/**
 * (d) Terminal output throughput: a shell printing 64 MiB through OUR `/ws/terminal` (pty → WebSocket binary
 * frames → undici WebSocket client) vs raw node-pty (`encoding: null`) reading the same shell's output in its
 * own child process. Both: fresh `/bin/sh` per run, 80×24, TERM=xterm-256color; clock starts as the command is
 * written (after the first prompt) and stops at the literal `BENCH-DONE-42`. Bytes are counted, never decoded.
 * Figure = median MiB/s of RUNS runs, interleaved ours/anchor after one warm-up each.
 */
import { WebSocket } from 'undici';
import { startChildServer, startChildWorker } from './lib/child-server.ts';
import { log } from './lib/log.ts';
import { MarkerScanner } from './lib/marker.ts';
import type { Figure } from './lib/result.ts';
import { median, sampleInterleaved } from './lib/stats.ts';

const RUNS = 5;
const MiB = 1024 * 1024;
export const TERMINAL_BYTES = 64 * MiB;
/** `tr` because `head -c` of /dev/zero gives NULs; the echoed command line shows `$((40+2))`, never `42`. */
const COMMAND = `head -c ${TERMINAL_BYTES} /dev/zero | tr '\\0' a; echo BENCH-DONE-$((40+2))`;
const MARKER = 'BENCH-DONE-42';
const TIMEOUT_MS = 60_000;
const CLOSE_GRACE_MS = 3_000;

interface RunResult {
  bytes: number;
  ms: number;
}

function toMiBps(name: string, { bytes, ms }: RunResult): number {
  if (bytes < TERMINAL_BYTES) throw new Error(`${name}: only ${bytes} bytes before ${MARKER}`);
  return bytes / MiB / (ms / 1000);
}

/** One run through our server: a fresh terminal, the command, bytes until the marker, then `exit` and close. */
function runOurs(wsUrl: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl);
    ws.binaryType = 'arraybuffer';
    const scanner = new MarkerScanner(MARKER);
    let started = -1;
    let bytes = 0;
    let result: RunResult | undefined;
    const fail = (error: Error) => {
      clearTimeout(timer);
      ws.close();
      reject(error);
    };
    const timer = setTimeout(() => fail(new Error(`ours: no ${MARKER} within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
    ws.addEventListener('message', (event) => {
      if (result) return;
      if (typeof event.data === 'string') return; // the server sends output as binary frames only
      const chunk = new Uint8Array(event.data as ArrayBuffer);
      if (started < 0) {
        // First output is the prompt: the shell is ready. Start the clock as the command goes in.
        started = performance.now();
        ws.send(JSON.stringify({ type: 'input', data: COMMAND + '\r' }));
        return;
      }
      bytes += chunk.byteLength;
      if (!scanner.push(chunk)) return;
      result = { bytes, ms: performance.now() - started };
      clearTimeout(timer);
      // Let the shell exit (the server then closes with 1000); close ourselves if it takes too long.
      ws.send(JSON.stringify({ type: 'input', data: 'exit\r' }));
      setTimeout(() => ws.close(), CLOSE_GRACE_MS).unref();
    });
    ws.addEventListener('close', (event) => {
      if (result) resolve(result);
      else fail(new Error(`ours: socket closed (${event.code} ${event.reason}) after ${bytes} bytes`));
    });
    ws.addEventListener('error', () => {
      if (!result) fail(new Error('ours: WebSocket error'));
    });
  });
}

export async function benchTerminal(root: string, token: string): Promise<Figure> {
  // SHELL=/bin/sh makes sh our server's default shell (no bash rc files); the anchor spawns /bin/sh itself.
  const ours = await startChildServer('ours', 'ours', { BENCH_ROOT: root, BENCH_TOKEN: token, SHELL: '/bin/sh' });
  const anchor = await startChildWorker('anchor', 'pty-anchor', { BENCH_ROOT: root, SHELL: '/bin/sh' });
  try {
    const wsUrl = `${ours.baseUrl.replace(/^http/, 'ws')}/ws/terminal?token=${encodeURIComponent(token)}`;
    const measureOurs = async () => toMiBps('ours', await runOurs(wsUrl));
    const measureAnchor = async () => {
      const answer = JSON.parse(await anchor.ask(JSON.stringify({ command: COMMAND, marker: MARKER }))) as RunResult & { error?: string };
      if (answer.error) throw new Error(answer.error);
      return toMiBps('anchor', answer);
    };
    const { ours: oursSamples, anchor: anchorSamples } = await sampleInterleaved(RUNS, measureOurs, measureAnchor);
    const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
    log(`terminal 64 MiB: ours [${fmt(oursSamples)}] MiB/s | anchor [${fmt(anchorSamples)}] MiB/s`);
    return {
      figure: 'terminal output 64 MiB',
      unit: 'MiB/s',
      ours: median(oursSamples),
      anchor: median(anchorSamples),
      higherIsBetter: true,
    };
  } finally {
    await Promise.all([ours.stop(), anchor.stop()]);
  }
}
