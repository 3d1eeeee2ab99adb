/**
 * The processes a test file started and that still run, found from /proc (Linux) without reading the whole
 * process table: for test/support/leak-check.ts, which looks once per test file.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** A process still running, with what identifies it across a pid's reuse and what a reader needs to find it. */
export interface LiveProcess {
  pid: number;
  /** Start time in clock ticks: a pid reused by another process has another. */
  start: string;
  ppid: number;
  /** The command line (/proc/PID/cmdline, spaces between arguments), or `(comm)` when it cannot be read. */
  command: string;
}

/** The command line (/proc/PID/cmdline, spaces between arguments), or `(comm)` when it cannot be read. */
export function commandLine(pid: number, comm: string): string {
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0$/, '');
    return raw === '' ? `(${comm})` : raw.split('\0').join(' ');
  } catch {
    return `(${comm})`;
  }
}

function hasVariable(pid: number, variable: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(variable);
  } catch {
    return false; // gone, or not ours to read
  }
}

/** `pid`'s children, from every thread's /proc/PID/task/TID/children (a thread may start children of its own). */
function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const children: number[] = [];
  for (const task of tasks) {
    try {
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'latin1').split(' ')) if (child !== '') children.push(Number(child));
    } catch {
      // the thread ended while we looked
    }
  }
  return children;
}

/** `pid` and everything below it. */
function subtree(pid: number, into: Set<number>): void {
  if (into.has(pid)) return;
  into.add(pid);
  for (const child of childrenOf(pid)) subtree(child, into);
}

interface Stat {
  state: string;
  ppid: number;
  start: string;
  comm: string;
}

function statOf(pid: number): Stat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid pgrp session … starttime …": comm may hold spaces and parentheses (proc-table.ts).
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  return { comm: stat.slice(stat.indexOf('(') + 1, close), state: fields[0] ?? '', ppid: Number(fields[1]), start: fields[19] ?? '' };
}

/**
 * The running processes (zombies left out) that descend from `root`, or (when given) whose environment holds
 * `marker` (`NAME=value`): a child's child whose parent has exited is re-parented away from `root` — to init, or
 * to the nearest ancestor that is a subreaper — and is found by the variable it inherited among the children of
 * `root`'s ancestors. Reads only those processes, not the whole table: this runs once per test file.
 */
export function liveDescendants(root: number, marker?: string): LiveProcess[] {
  const found = new Set<number>();
  for (const child of childrenOf(root)) subtree(child, found);
  if (marker !== undefined) adoptedMarked(root, marker, found);
  const live: LiveProcess[] = [];
  for (const pid of found) {
    const stat = statOf(pid);
    if (stat === undefined || stat.state === 'Z' || stat.state === 'X') continue; // gone, or exited and not yet reaped
    live.push({ pid, start: stat.start, ppid: stat.ppid, command: commandLine(pid, stat.comm) });
  }
  return live.sort((a, b) => a.pid - b.pid);
}

/** Adds to `found` the processes holding `marker` that were re-parented to one of `root`'s ancestors, with theirs. */
function adoptedMarked(root: number, marker: string, found: Set<number>): void {
  const ancestors: number[] = [];
  for (let pid = statOf(root)?.ppid ?? 0; pid > 0 && !ancestors.includes(pid); pid = statOf(pid)?.ppid ?? 0) ancestors.push(pid);
  if (!ancestors.includes(1)) ancestors.push(1);
  for (const ancestor of ancestors) {
    for (const child of childrenOf(ancestor)) {
      if (child === root || ancestors.includes(child) || found.has(child)) continue;
      if (hasVariable(child, marker)) subtree(child, found);
    }
  }
}
