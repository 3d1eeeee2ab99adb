/**
 * (f) Change-feed latency: a shell writes a file; how long until OUR `/workspace-files/changes` SSE stream
 * (real server in its own process: @parcel/watcher → stat → feed → SSE → undici client) reports it, against
 * the anchor, @parcel/watcher alone in its own process printing its callback's paths (the library's own
 * latency, debounce included). Both watch the same folder at the same time, so every sample is the same write
 * seen by both.
 *
 * The writer is one long-lived `sh` fed one path per stdin line (`printf x > "$p"`: a builtin, no fork per
 * write); a fresh path per write, so a late event of the previous write cannot be mistaken for this one.
 * Two cadences, because parcel's debouncer decides the latency: "busy" — the next write 10 ms after both
 * sides saw the last (parcel batches for 50 ms while events keep coming); "idle" — 600 ms apart (the first
 * event after a quiet half second is delivered at once). p50 and p99 of each, after 3 warm-up writes.
 */
import { spawn } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fetch } from 'undici';
import { startChildServer } from './lib/child-server.ts';
import { log } from './lib/log.ts';
import { cacheDir, projectRoot } from './lib/paths.ts';
import type { Figure } from './lib/result.ts';

const BUSY_WRITES = 200;
const BUSY_GAP_MS = 10;
const IDLE_WRITES = 20;
const IDLE_GAP_MS = 600;
const WARMUP_WRITES = 3;
const TIMEOUT_MS = 10_000;

type Arrival = (path: string, at: number) => void;

/** Resolves a path's arrival time once reported; one listener per side. */
class Arrivals {
  private readonly waiting = new Map<string, (at: number) => void>();
  readonly report: Arrival = (path, at) => {
    const resolve = this.waiting.get(path);
    if (resolve) {
      this.waiting.delete(path);
      resolve(at);
    }
  };
  expect(path: string, side: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${side}: ${path} not reported within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
      this.waiting.set(path, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
  }
}

/** Our SSE stream: calls `onChange` with each change frame's path; resolves once `ready` has arrived. */
async function openFeed(baseUrl: string, token: string, onChange: Arrival, signal: AbortSignal): Promise<void> {
  const response = await fetch(`${baseUrl}/workspace-files/changes`, { headers: { authorization: `Bearer ${token}` }, signal });
  if (response.status !== 200 || !response.body) throw new Error(`changes stream: HTTP ${response.status}`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (done) return;
      const at = performance.now();
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!block.startsWith('data: ')) continue;
        const frame = JSON.parse(block.slice(6)) as { kind: string; change?: { absolutePath: string } };
        if (frame.kind === 'ready') ready();
        else if (frame.kind === 'change') onChange(frame.change!.absolutePath, at);
      }
    }
  })();
  return isReady;
}

/** The anchor child (bench/servers/watcher-anchor.ts); resolves once its watches are in place. */
async function startAnchor(root: string, onPath: Arrival): Promise<{ stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(projectRoot, 'bench', 'servers', 'watcher-anchor.ts')], {
    cwd: projectRoot,
    env: { ...process.env, BENCH_ROOT: root, NODE_ENV: 'production' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('anchor: not ready within 30 s')), 30_000);
    lines.on('line', (line) => {
      const at = performance.now();
      const message = JSON.parse(line) as { ready?: true; path?: string };
      if (message.ready) {
        clearTimeout(timer);
        resolve();
      } else if (message.path) onPath(message.path, at);
    });
  });
  return {
    async stop() {
      child.stdin!.end();
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function startShellWriter(cwd: string) {
  const shell = spawn('sh', ['-c', 'while IFS= read -r p; do printf x > "$p"; done'], { cwd, stdio: ['pipe', 'ignore', 'inherit'] });
  const exited = new Promise<void>((resolve) => shell.once('exit', () => resolve()));
  return {
    write: (path: string) => shell.stdin.write(path + '\n'),
    async stop() {
      shell.stdin.end();
      await exited;
    },
  };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export async function benchChangeFeed(token: string): Promise<Figure[]> {
  const workspace = join(cacheDir, 'changes-workspace');
  await rm(workspace, { recursive: true, force: true });
  await mkdir(workspace, { recursive: true });
  const ours = new Arrivals();
  const anchor = new Arrivals();
  const server = await startChildServer('ours', 'ours', { BENCH_ROOT: workspace, BENCH_TOKEN: token });
  const abort = new AbortController();
  const watcher = await startAnchor(workspace, anchor.report);
  const writer = startShellWriter(workspace);
  try {
    await openFeed(server.baseUrl, token, ours.report, abort.signal);

    async function measure(regime: string, writes: number, gapMs: number): Promise<{ ours: number[]; anchor: number[] }> {
      const samples = { ours: [] as number[], anchor: [] as number[] };
      for (let i = 0; i < writes + WARMUP_WRITES; i++) {
        await new Promise((resolve) => setTimeout(resolve, gapMs));
        const path = join(workspace, `${regime}-${i}.txt`);
        const seen = Promise.all([ours.expect(path, 'ours'), anchor.expect(path, 'anchor')]);
        const started = performance.now();
        writer.write(path);
        const [oursAt, anchorAt] = await seen;
        if (i < WARMUP_WRITES) continue;
        samples.ours.push(oursAt - started);
        samples.anchor.push(anchorAt - started);
      }
      return samples;
    }

    log(`changes: ${BUSY_WRITES} writes ${BUSY_GAP_MS} ms apart (busy), then ${IDLE_WRITES} writes ${IDLE_GAP_MS} ms apart (idle)`);
    const busy = await measure('busy', BUSY_WRITES, BUSY_GAP_MS);
    const idle = await measure('idle', IDLE_WRITES, IDLE_GAP_MS);
    const row = (name: string, samples: { ours: number[]; anchor: number[] }, p: number, note: string): Figure => ({
      figure: `change feed p${p} ${name} (shell write → event)`,
      unit: 'ms',
      ours: percentile(samples.ours, p),
      anchor: percentile(samples.anchor, p),
      higherIsBetter: false,
      note,
    });
    const busyNote = `${BUSY_WRITES} writes, next ${BUSY_GAP_MS} ms after both saw the last; anchor = @parcel/watcher callback alone`;
    const idleNote = `${IDLE_WRITES} writes ${IDLE_GAP_MS} ms apart; anchor = @parcel/watcher callback alone`;
    return [row('busy', busy, 50, busyNote), row('busy', busy, 99, busyNote), row('idle', idle, 50, idleNote), row('idle', idle, 99, idleNote)];
  } finally {
    abort.abort();
    await writer.stop();
    await watcher.stop();
    await server.stop();
    await rm(workspace, { recursive: true, force: true });
  }
}
