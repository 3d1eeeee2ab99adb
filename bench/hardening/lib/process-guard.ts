/**
 * Every process a hardening run starts (the daemon, wrk) is registered here with its process group, so it is
 * gone afterwards even when the run fails or is interrupted: Ctrl-C reaches only the terminal's foreground group,
 * and our children run in groups of their own (so that one kill takes a child's own children too). Terminals the
 * daemon starts are sessions of their own, out of any group we know: `killTree` walks /proc for them.
 */
import type { ChildProcess } from 'node:child_process';
import { readProcTable } from '../../../adapters/posix/proc-table.ts';

const groups = new Set<number>();

/** Registers a child spawned with `detached: true` (it leads its own process group); forgotten at its exit. */
export function guardChild(child: ChildProcess): void {
  const pid = child.pid;
  if (pid === undefined) return;
  groups.add(pid);
  child.once('exit', () => groups.delete(pid));
}

/** SIGKILL to a process group; silent when it is already gone. */
export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/** Every live descendant of `pid` (children, grandchildren, …), from /proc. */
export function descendantsOf(pid: number): number[] {
  const table = readProcTable();
  if (!table) return [];
  const children = new Map<number, number[]>();
  for (const row of table.values()) {
    if (!children.has(row.ppid)) children.set(row.ppid, []);
    children.get(row.ppid)!.push(row.pid);
  }
  const found: number[] = [];
  const queue = [...(children.get(pid) ?? [])];
  while (queue.length > 0) {
    const next = queue.shift()!;
    found.push(next);
    queue.push(...(children.get(next) ?? []));
  }
  return found;
}

/** SIGKILL to `pid`'s group and to every descendant (ptys' sessions included), read before the kill. */
export function killTree(pid: number): void {
  const below = descendantsOf(pid);
  killGroup(pid);
  for (const child of below) {
    try {
      process.kill(child, 'SIGKILL');
    } catch {
      // gone already
    }
  }
}

function killAllGuarded(): void {
  for (const pgid of groups) killTree(pgid);
  groups.clear();
}

let installed = false;
/** Kills every guarded child when this process exits or is interrupted. Idempotent. */
export function installProcessGuard(): void {
  if (installed) return;
  installed = true;
  process.on('exit', killAllGuarded);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      killAllGuarded();
      process.exit(130);
    });
  }
}
