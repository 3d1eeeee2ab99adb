import { readProcTable } from './proc-table.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Killing everything a child started. Our children (a pty's shell, a `run_command` shell) are session leaders
 * (forkpty and `detached: true` both call setsid). A shell with job control moves background jobs into process
 * groups of their own, so signalling only the leader's group would leave `sleep 1000 &` running: these signal
 * the leader's group and, on Linux, every process still in its session. Processes that started a session of
 * their own (daemons, `setsid cmd`) are out of reach by design.
 */

const POLL_MS = 25;

export interface TerminateOptions {
  /** The polite signal: SIGHUP for a terminal (its line hung up), SIGTERM for a command. */
  signal: NodeJS.Signals;
  /** How long the session gets to act on `signal` before whatever is left gets SIGKILL. */
  graceMs: number;
  /** Whether the leader has exited and been reaped, and the moment it does. */
  hasExited(): boolean;
  exited: Promise<unknown>;
}

/**
 * `signal` to the session now, SIGKILL to whatever is left after the grace period. Resolves when the leader
 * has exited and nothing else in its session runs (bounded even if a process cannot be killed). A session
 * that is already empty gets no signal at all.
 */
export async function terminateSession(leader: number, options: TerminateOptions): Promise<void> {
  const gone = () => options.hasExited() && !sessionAlive(leader);
  if (gone()) return;
  signalSession(leader, options.signal);
  const deadline = Date.now() + options.graceMs;
  while (Date.now() < deadline) {
    if (gone()) return;
    await sleep(POLL_MS);
  }
  signalSession(leader, 'SIGKILL');
  await Promise.race([options.exited, sleep(options.graceMs)]);
}

/** Signals the process group led by `leader` and every process in its session. Gone processes are fine. */
export function signalSession(leader: number, signal: NodeJS.Signals): void {
  const members = sessionMembers(leader) ?? [];
  const groups = new Set<number>([leader, ...members.map((member) => member.pgrp)]);
  for (const group of groups) trySignal(-group, signal);
  for (const member of members) trySignal(member.pid, signal);
}

/** Whether anything in the session still runs (zombies waiting for a reaper do not count). */
export function sessionAlive(leader: number): boolean {
  const members = sessionMembers(leader);
  if (members === undefined) return groupExists(leader);
  return members.some((member) => member.state !== 'Z' && member.state !== 'X');
}

function groupExists(leader: number): boolean {
  try {
    process.kill(-leader, 0);
    return true;
  } catch {
    return false;
  }
}

/** Sends `signal` to `target` (a pid, or -pgid); one that is gone or not ours is no error. */
export function trySignal(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ESRCH' && code !== 'EPERM') throw error;
  }
}

interface ProcessIds {
  pid: number;
  pgrp: number;
  /** One-letter state from /proc: R, S, D, Z (zombie), ... */
  state: string;
}

/** Processes whose session id is `sid` (adapters/posix/proc-table.ts); undefined where /proc is absent (macOS). */
function sessionMembers(sid: number): ProcessIds[] | undefined {
  const table = readProcTable();
  if (table === undefined) return undefined;
  const members: ProcessIds[] = [];
  for (const row of table.values()) if (row.session === sid) members.push({ pid: row.pid, pgrp: row.pgrp, state: row.state });
  return members;
}
