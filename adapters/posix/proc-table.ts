import { readdirSync, readFileSync } from 'node:fs';

/** One process as /proc/<pid>/stat describes it. */
export interface ProcRow {
  pid: number;
  /** The command name (`comm`, at most 15 bytes). */
  comm: string;
  ppid: number;
  pgrp: number;
  session: number;
  /** R, S, D, Z (zombie), X (dead), … */
  state: string;
  /** Clock ticks since boot: with the pid, the process's identity (a reused pid has another). */
  start: string;
}

/**
 * Every process now, from /proc (Linux); undefined where /proc is absent (macOS). A process that exits while the
 * table is read is left out. Shared by the session signalling (terminals, run_command) and the job host's
 * process-tree kill.
 */
export function readProcTable(): Map<number, ProcRow> | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const rows = new Map<number, ProcRow>();
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'latin1');
    } catch {
      continue; // exited while we looked
    }
    // "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime
    // cstime priority nice threads itrealvalue starttime ..." — comm may hold spaces and parentheses.
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    rows.set(Number(name), {
      pid: Number(name),
      comm: stat.slice(stat.indexOf('(') + 1, close),
      state: fields[0] ?? '',
      ppid: Number(fields[1]),
      pgrp: Number(fields[2]),
      session: Number(fields[3]),
      start: fields[19] ?? '',
    });
  }
  return rows;
}
