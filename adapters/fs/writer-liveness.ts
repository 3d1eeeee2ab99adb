/**
 * Is the writer a leftover names still running? Read from /proc/<pid>/stat on Linux: a missing entry or a zombie
 * is gone; a running process comes with its start time, so the sweep can tell the writer itself from a newer
 * process that was given the same pid (./leftover-sweep.ts). Elsewhere `kill(pid, 0)`: alive or not, no start
 * time (the sweep then keeps every entry of a live pid).
 */
import { readFileSync } from 'node:fs';

export interface WriterState {
  alive: boolean;
  /** When the process now holding the pid started (wall clock, ms); absent when unknown. */
  startedAtMs?: number;
}

/**
 * USER_HZ: /proc counts start times in these ticks. The kernel reports 100 on every architecture Linux builds for
 * (the ABI fixes it; `getconf CLK_TCK`), and Node has no sysconf to ask.
 */
const TICKS_PER_SECOND = 100;

let bootTimeMs: number | undefined | null = null;

/** The boot time from /proc/stat (`btime`, whole seconds), read once; undefined off Linux. */
function bootTime(): number | undefined {
  if (bootTimeMs !== null) return bootTimeMs;
  const line = /^btime (\d+)$/m.exec(readOrUndefined('/proc/stat') ?? '');
  bootTimeMs = line ? Number(line[1]) * 1000 : undefined;
  return bootTimeMs;
}

export function writerState(pid: number): WriterState {
  // 0 and negative numbers signal process groups, never one process: no name of ours carries them.
  if (!Number.isSafeInteger(pid) || pid < 1) return { alive: false };
  const boot = bootTime();
  if (boot === undefined) return { alive: signalReaches(pid) };
  const stat = readOrUndefined(`/proc/${pid}/stat`);
  if (stat === undefined) return { alive: false };
  // The command name (field 2) is in parentheses and may hold spaces or ')': the fields start after the last one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  if (state === 'Z' || state === 'X') return { alive: false }; // dead, not yet reaped: it writes nothing more
  const ticks = Number(fields[19]);
  return Number.isFinite(ticks) ? { alive: true, startedAtMs: boot + (ticks / TICKS_PER_SECOND) * 1000 } : { alive: true };
}

function signalReaches(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'; // EPERM: alive, someone else's
  }
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
