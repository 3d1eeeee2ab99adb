/**
 * A child server's memory from /proc/<pid>/status (Linux only): VmRSS is the resident set now (RssAnon plus
 * RssFile plus RssShmem: what the process allocated, and the pages of files it maps such as its binary), VmHWM its
 * peak ("high-water mark") since start-up — or since `resetPeakRss`, which writes `5` to
 * /proc/<pid>/clear_refs (Linux ≥ 4.0; the process's owner or root), so each run of a bench that shares one
 * server across several figures gets a peak of its own.
 */
import { readFile, writeFile } from 'node:fs/promises';

export async function memoryKiB(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  return (await procStatus(pid)).kiB(field);
}

/** /proc/<pid>/status read once: its memory fields in kB (VmRSS, RssAnon, RssFile, …) and its counts (Threads). */
export async function procStatus(pid: number): Promise<{ kiB(field: string): number; count(field: string): number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name: string): number => {
    const match = new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status);
    if (!match) throw new Error(`no ${name} in /proc/${pid}/status`);
    return Number(match[1]);
  };
  return { kiB: field, count: field };
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
