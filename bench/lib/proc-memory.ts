/**
 * A child server's memory from /proc/<pid>/status (Linux only): VmRSS is the resident set now, VmHWM its
 * peak ("high-water mark") since start-up — or since `resetPeakRss`, which writes `5` to
 * /proc/<pid>/clear_refs (Linux ≥ 4.0; the process's owner or root), so each run of a bench that shares one
 * server across several figures gets a peak of its own.
 */
import { readFile, writeFile } from 'node:fs/promises';

export async function memoryKiB(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]);
}

/** Resets VmHWM to the current VmRSS; false where the kernel or permissions refuse (the peak then spans more). */
export async function resetPeakRss(pid: number): Promise<boolean> {
  try {
    await writeFile(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
