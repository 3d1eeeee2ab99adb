import { readProcTable, type ProcRow } from '../posix/proc-table.ts';
import { trySignal } from '../posix/session-signals.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Killing a whole process tree on Linux, read from /proc: the root's descendants by parent pid (also those that
 * left its process group or session, as `setsid server &` does), and everything in the root's process group and
 * session. Each process is known by pid and start time, so a pid the kernel reuses later is never signalled.
 * Where /proc is absent (macOS) only the root's process group is reached.
 */

const POLL_MS = 25;
/** After SIGKILL: how long to wait for the kernel to take them (an uninterruptible process may linger). */
const AFTER_KILL_MS = 2000;

const alive = (row: ProcRow) => row.state !== 'Z' && row.state !== 'X';

/** Adds to `known` (pid → start time) every live process of `root`'s tree, group and session now. */
function collect(root: number, known: Map<number, string>, rows: Map<number, ProcRow>): void {
  const children = new Map<number, number[]>();
  for (const row of rows.values()) {
    const list = children.get(row.ppid);
    if (list) list.push(row.pid);
    else children.set(row.ppid, [row.pid]);
  }
  const rootRow = rows.get(root);
  if (rootRow && !known.has(root)) known.set(root, rootRow.start);
  // Descendants of every process known so far (an orphan re-parented to init stays known from an earlier look).
  const queue = [...known.keys()];
  for (const row of rows.values()) if (row.pgrp === root || row.session === root) queue.push(row.pid);
  while (queue.length > 0) {
    const pid = queue.pop()!;
    const row = rows.get(pid);
    if (!row) continue;
    const start = known.get(pid);
    if (start !== undefined && start !== row.start) continue; // a reused pid: not ours
    if (start === undefined) known.set(pid, row.start);
    for (const child of children.get(pid) ?? []) if (!known.has(child)) queue.push(child);
  }
}

/** The known processes still running as themselves. */
function living(known: Map<number, string>, rows: Map<number, ProcRow>): number[] {
  const pids: number[] = [];
  for (const [pid, start] of known) {
    const row = rows.get(pid);
    if (row && row.start === start && alive(row)) pids.push(pid);
  }
  return pids;
}

/**
 * SIGTERM to `root`'s whole tree now, SIGKILL to whatever of it is left after `graceMs` (children it forks in the
 * meantime are found on every look). Resolves once none of it runs (bounded if a process cannot be killed).
 */
export async function killProcessTree(root: number, options: { graceMs: number }): Promise<void> {
  const known = new Map<number, string>();
  const look = (): number[] | undefined => {
    const rows = readProcTable();
    if (rows === undefined) return undefined;
    collect(root, known, rows);
    return living(known, rows);
  };
  const first = look();
  if (first === undefined) {
    trySignal(-root, 'SIGTERM');
    await sleep(options.graceMs);
    trySignal(-root, 'SIGKILL');
    return;
  }
  if (first.length === 0) return;
  for (const pid of first) trySignal(pid, 'SIGTERM');
  const signalled = new Set(first);
  const deadline = Date.now() + options.graceMs;
  while (Date.now() < deadline) {
    await sleep(POLL_MS);
    const left = look()!;
    if (left.length === 0) return;
    for (const pid of left) {
      if (signalled.has(pid)) continue;
      signalled.add(pid);
      trySignal(pid, 'SIGTERM'); // forked after the first look
    }
  }
  const killDeadline = Date.now() + AFTER_KILL_MS;
  for (;;) {
    const left = look()!;
    if (left.length === 0 || Date.now() >= killDeadline) return;
    for (const pid of left) trySignal(pid, 'SIGKILL');
    await sleep(POLL_MS);
  }
}
