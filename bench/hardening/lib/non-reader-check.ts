/**
 * Evidence that a never-reading client's backpressure engaged: its program (`yes <client name>`, so each one is
 * found by its command line among the daemon's descendants) has written more than the daemon may hold for it — a
 * full ring plus a full socket queue — and then writes nothing more: it is blocked on a full pty because the daemon
 * paused reading it. The byte count is the kernel's (`wchar` in /proc/PID/io: bytes the program wrote to the pty),
 * the same for every transport; ori's unnamed sessions are not listed by the API.
 */
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { descendantsOf } from './process-guard.ts';

export interface NonReaderState {
  name: string;
  pid: number | undefined;
  /** Bytes the program had written at the first and the last look. */
  written: number;
  /** Whether it wrote nothing between the two looks. */
  paused: boolean;
}

/** name → pid of the descendants of `daemonPid` running `yes <name>`. */
async function programs(daemonPid: number, names: readonly string[]): Promise<Map<string, number>> {
  const wanted = new Set(names);
  const found = new Map<string, number>();
  for (const pid of descendantsOf(daemonPid)) {
    const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
    if (argv[0]?.endsWith('yes') && wanted.has(argv[1] ?? '')) found.set(argv[1]!, pid);
  }
  return found;
}

async function written(pid: number): Promise<number> {
  const io = await readFile(`/proc/${pid}/io`, 'utf8').catch(() => '');
  const match = /^wchar: (\d+)$/m.exec(io);
  return match ? Number(match[1]) : Number.NaN;
}

/** One look: each program's bytes now and `settleMs` later. */
export async function lookAtNonReaders(daemonPid: number, names: readonly string[], settleMs: number): Promise<NonReaderState[]> {
  const pids = await programs(daemonPid, names);
  const before = new Map<string, number>();
  for (const [name, pid] of pids) before.set(name, await written(pid));
  await sleep(settleMs);
  const states: NonReaderState[] = [];
  for (const name of names) {
    const pid = pids.get(name);
    const after = pid === undefined ? Number.NaN : await written(pid);
    states.push({ name, pid, written: after, paused: Number.isFinite(after) && after === before.get(name) });
  }
  return states;
}

/**
 * Looks until every program has written at least `minBytes` and stands still, or `timeoutMs` passed; resolves with
 * the last look either way (the caller decides).
 */
export async function waitForBackpressure(daemonPid: number, names: readonly string[], minBytes: number, timeoutMs: number): Promise<NonReaderState[]> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const states = await lookAtNonReaders(daemonPid, names, 2000);
    if (states.every((state) => state.paused && state.written >= minBytes) || performance.now() > deadline) return states;
  }
}

export function describeStates(states: readonly NonReaderState[]): string {
  const bad = states.filter((state) => !state.paused);
  const low = Math.min(...states.map((state) => state.written));
  const high = Math.max(...states.map((state) => state.written));
  const running = bad.length > 0 ? `; still writing: ${bad.map((state) => `${state.name}${state.pid === undefined ? ' (no program)' : ''}`).join(', ')}` : '';
  return `programs wrote ${(low / 1024 / 1024).toFixed(2)}–${(high / 1024 / 1024).toFixed(2)} MiB each${running}`;
}
