/**
 * (e) `GET /workspace-files/read` of the LAST page (the default 5000 lines) of a 1 GiB log, against the same
 * read of a 64 MiB log: time (median of RUNS after one warm-up), the server's CPU time per read (user + system,
 * steadier than wall time on a shared machine) and the server's peak RSS. There is no anchor
 * process: the 64 MiB log is the comparison, so the table shows what grows with the file (time: the seed has
 * no line index, so the last page streams the whole file to count lines) and what must not (memory).
 *
 * Each log gets a fresh server, so its VmHWM (peak resident set, /proc/PID/status) covers only that log's
 * reads; "growth" = VmHWM after the reads − VmRSS after start-up and one small warm-up request.
 */
import { open, mkdir, readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { startChildServer } from './lib/child-server.ts';
import { getJson } from './lib/http-client.ts';
import { log } from './lib/log.ts';
import { memoryKiB } from './lib/proc-memory.ts';
import { cacheDir } from './lib/paths.ts';
import type { Figure } from './lib/result.ts';
import { median, nowMs, sample } from './lib/stats.ts';

const RUNS = 5;
const MiB = 1024 * 1024;
const PAGE_LINES = 5000; // limits.pageMaxLines, the default page
/** ~100-byte log lines; 10 000 of them make one block, repeated to the size wanted. */
const LINES_PER_BLOCK = 10_000;

export const logsRoot = join(cacheDir, 'logs');

interface LogFile {
  name: string;
  lines: number;
  bytes: number;
}

function logBlock(): Uint8Array {
  let text = '';
  for (let i = 0; i < LINES_PER_BLOCK; i++) {
    const level = ['INFO', 'WARN', 'DEBUG'][i % 3]!;
    const id = String(i).padStart(6, '0');
    text +=
      `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.${String(i % 1000).padStart(3, '0')}Z ${level.padEnd(5)} ` +
      `worker-${i % 8} GET /api/v1/items/${id} user=u${id} served in ${String((i * 7) % 997).padStart(3)} ms ok\n`;
  }
  return new TextEncoder().encode(text);
}

/** Writes the log once (staging file, then rename: an interrupted write is never reused). */
async function ensureLog(name: string, targetBytes: number): Promise<LogFile> {
  const block = logBlock();
  const blocks = Math.ceil(targetBytes / block.length);
  const file: LogFile = { name, lines: blocks * LINES_PER_BLOCK, bytes: blocks * block.length };
  const path = join(logsRoot, name);
  if ((await stat(path).catch(() => undefined))?.size === file.bytes) return file;
  await mkdir(logsRoot, { recursive: true });
  log(`writing ${path} (${(file.bytes / MiB).toFixed(0)} MiB of ~${Math.round(block.length / LINES_PER_BLOCK)}-byte lines)…`);
  const staging = `${path}.tmp`;
  const handle = await open(staging, 'w');
  try {
    for (let i = 0; i < blocks; i++) await handle.write(block);
  } finally {
    await handle.close();
  }
  await rename(staging, path);
  return file;
}

/** The process's CPU time so far (user + system), in ms: steadier than wall time on a shared machine. */
async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces, hence the last ')'): utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticksPerSecond = 100; // USER_HZ on Linux
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

interface PageAnswer {
  offset: number;
  lines: number;
  eof: boolean;
  text: string;
  bytes: number;
}

interface Measured {
  ms: number[];
  /** The server's CPU time per read (mean over the measured runs). */
  cpuMsPerRead: number;
  startRssMiB: number;
  peakRssMiB: number;
}

async function measureLastPage(file: LogFile, token: string): Promise<Measured> {
  const server = await startChildServer(`ours (${file.name})`, 'ours', { BENCH_ROOT: logsRoot, BENCH_TOKEN: token });
  try {
    const headers = { authorization: `Bearer ${token}` };
    const offset = file.lines - PAGE_LINES + 1;
    const url = `${server.baseUrl}/workspace-files/read?path=${encodeURIComponent(file.name)}&offset=${offset}`;
    // Warm the server up on a small read (the first page) before the baseline.
    await getJson(`${server.baseUrl}/workspace-files/read?path=${encodeURIComponent(file.name)}&limit=10`, headers);
    const startRss = await memoryKiB(server.pid, 'VmRSS');
    const readOnce = async () => {
      const started = nowMs();
      const page = await getJson<PageAnswer>(url, headers);
      const elapsed = nowMs() - started;
      if (page.lines !== PAGE_LINES || !page.eof || page.bytes !== file.bytes || page.offset !== offset) {
        throw new Error(`unexpected page: ${JSON.stringify({ ...page, text: page.text.length })}`);
      }
      return elapsed;
    };
    await readOnce(); // the warm-up, outside the CPU count
    const cpuBefore = await cpuMs(server.pid);
    const ms = await sample(RUNS, readOnce, 0);
    const cpuMsPerRead = ((await cpuMs(server.pid)) - cpuBefore) / RUNS;
    return { ms, cpuMsPerRead, startRssMiB: startRss / 1024, peakRssMiB: (await memoryKiB(server.pid, 'VmHWM')) / 1024 };
  } finally {
    await server.stop();
  }
}

export async function benchReadPage(token: string): Promise<Figure[]> {
  const small = await ensureLog('log-64mib.log', 64 * MiB);
  const big = await ensureLog('log-1gib.log', 1024 * MiB);
  const smallRun = await measureLastPage(small, token);
  const bigRun = await measureLastPage(big, token);
  for (const [file, run] of [
    [small, smallRun],
    [big, bigRun],
  ] as const) {
    log(
      `read last page of ${file.name} (${file.lines} lines): [${run.ms.map((x) => x.toFixed(0)).join(', ')}] ms, ` +
        `${(file.bytes / MiB / (median(run.ms) / 1000)).toFixed(0)} MiB/s scanned, ` +
        `server CPU ${run.cpuMsPerRead.toFixed(0)} ms/read; RSS ${run.startRssMiB.toFixed(1)} MiB ` +
        `after start-up, peak ${run.peakRssMiB.toFixed(1)} MiB (+${(run.peakRssMiB - run.startRssMiB).toFixed(1)} MiB)`,
    );
  }
  const growth = (run: Measured) => run.peakRssMiB - run.startRssMiB;
  return [
    {
      figure: 'read last page, 1 GiB log (vs 64 MiB)',
      unit: 'ms',
      ours: median(bigRun.ms),
      anchor: median(smallRun.ms),
      higherIsBetter: false,
      note: 'anchor = same read of a 64 MiB log; 16x the bytes, no line index: ~16x expected',
    },
    {
      figure: 'read last page, server CPU per read',
      unit: 'ms',
      ours: bigRun.cpuMsPerRead,
      anchor: smallRun.cpuMsPerRead,
      higherIsBetter: false,
      note: 'user + system time of the server process (/proc/PID/stat): steadier than wall time on a busy machine',
    },
    {
      figure: 'read last page, server peak RSS',
      unit: 'MiB',
      ours: bigRun.peakRssMiB,
      anchor: smallRun.peakRssMiB,
      higherIsBetter: false,
      note:
        `1 GiB vs 64 MiB log: ~1x = memory does not grow with the file ` +
        `(growth +${growth(bigRun).toFixed(1)} vs +${growth(smallRun).toFixed(1)} MiB)`,
    },
  ];
}
