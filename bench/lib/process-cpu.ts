/**
 * The CPU time (user + system, every thread: the JS thread, libuv's pool, V8's helpers) a process has used so
 * far, from /proc/<pid>/stat. On a shared machine wall-clock throughput swings with the neighbours' load; the
 * CPU a server spends per byte moves far less, so it says which side does more work for the same bytes.
 * Linux only: undefined where /proc is missing.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

export function processCpuMs(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command name (which may hold spaces, hence the last ')'): utime is 14th, stime 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  ticksPerSecond ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}
