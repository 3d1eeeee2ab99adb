import { afterAll, beforeAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { readProcTable } from '../../adapters/posix/proc-table.ts';

/** Whether `pid` runs (a zombie waiting for its reaper counts as gone). Linux: reads /proc. */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Polls `check` until it returns a value other than undefined/false; fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = 5000, intervalMs = 20, what = 'condition' }: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export interface ProcessEntry {
  pid: number;
  /** The command name (`comm`). */
  comm: string;
  /** One-letter state: R, S, D, Z (zombie), ... */
  state: string;
  ppid: number;
  pgrp: number;
  sid: number;
  /** The stat line's head, `pid (comm) state`, for messages. */
  label: string;
}

/** Every process on the machine (adapters/posix/proc-table.ts, Linux); ones that exit while we look are skipped. */
export function processTable(): ProcessEntry[] {
  const rows = readProcTable();
  if (rows === undefined) throw new Error('no /proc here: these tests need Linux');
  return [...rows.values()].map(({ pid, comm, state, ppid, pgrp, session }) => ({
    pid,
    comm,
    state,
    ppid,
    pgrp,
    sid: session,
    label: `${pid} (${comm}) ${state}`,
  }));
}

/** The pids whose command name is `comm` and whose session id is `sid` (Linux /proc). */
export function processesInSession(sid: number, comm: string): number[] {
  return processTable()
    .filter((entry) => entry.comm === comm && entry.sid === sid)
    .map((entry) => entry.pid);
}

/** Bytes a process has written so far (`wchar` in /proc/PID/io); undefined once it is gone. */
export function bytesWritten(pid: number): number | undefined {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'latin1');
    return Number(io.match(/^wchar: (\d+)$/m)?.[1]);
  } catch {
    return undefined;
  }
}

/**
 * Runs the enclosing describe's sessions with plain `sh` as $SHELL: a user's interactive bash start-up files
 * (slow version-manager hooks) would make terminal tests slow and flaky. Shell choice has its own tests.
 */
export function usePlainShell(): void {
  const originalShell = process.env.SHELL;
  beforeAll(() => {
    process.env.SHELL = '/bin/sh';
  });
  afterAll(() => {
    if (originalShell === undefined) delete process.env.SHELL;
    else process.env.SHELL = originalShell;
  });
}

/** Whether a TCP connect to 127.0.0.1:`port` is refused (nothing listens there). */
export function portRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/** A running process with its command line. */
export interface MarkedProcess extends ProcessEntry {
  /** Its arguments (/proc/PID/cmdline), the executable first. */
  argv: string[];
}

/**
 * Every running process (zombies left out) whose environment holds `name=value` (/proc/PID/environ, Linux). A
 * test that puts a variable of its own into the environment its daemon hands down finds with it everything that
 * daemon started, grandchildren included, and nothing any other test or program runs.
 */
export function processesWithEnv(name: string, value: string): MarkedProcess[] {
  const variable = `${name}=${value}`;
  const found: MarkedProcess[] = [];
  for (const row of processTable()) {
    if (row.state === 'Z' || row.state === 'X') continue;
    let environ: string;
    let cmdline: string;
    try {
      environ = readFileSync(`/proc/${row.pid}/environ`, 'utf8');
      cmdline = readFileSync(`/proc/${row.pid}/cmdline`, 'utf8');
    } catch {
      continue; // exited while we looked, or not ours to read
    }
    if (!environ.split('\0').includes(variable)) continue;
    // cmdline ends with a NUL: the empty piece after it is no argument.
    found.push({ ...row, argv: cmdline.endsWith('\0') ? cmdline.slice(0, -1).split('\0') : cmdline.split('\0') });
  }
  return found;
}
