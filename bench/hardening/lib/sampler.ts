/**
 * What a long run watches in the daemon, read every few seconds: resident memory, V8 heap (over IPC, see
 * ./daemon.ts), open file descriptors, descendant processes and inotify watches — all from /proc (Linux), so
 * the daemon needs no route for them.
 */
import { readdir, readFile, readlink } from 'node:fs/promises';
import { readProcTable } from '../../../adapters/posix/proc-table.ts';
import { procStatus } from '../../lib/proc-memory.ts';
import { descendantsOf } from './process-guard.ts';

const MiB = 1024 * 1024;

export interface Sample {
  /** Seconds since the sampler started. */
  t: number;
  rssMiB: number;
  /** Of the RSS, anonymous memory (heaps, malloc, stacks) and file-backed pages (the node binary, libraries). */
  rssAnonMiB: number;
  rssFileMiB: number;
  /** NaN when the daemon did not answer in time. */
  heapUsedMiB: number;
  /** The main isolate's heap as V8 holds it from the OS (used plus free pages), and memory outside it (Buffers). */
  heapTotalMiB: number;
  externalMiB: number;
  fds: number;
  /** The daemon's threads: its main thread, libuv's and V8's, and one per search worker alive (each its own isolate). */
  threads: number;
  /** Live descendant processes (terminals' shells and programs, git, commands). */
  children: number;
  /** Of those, zombies (exited, not yet reaped by the daemon). */
  zombies: number;
  inotifyWatches: number;
}

export async function fdCount(pid: number): Promise<number> {
  return (await readdir(`/proc/${pid}/fd`)).length;
}

/** The inotify watches `pid` holds: every inotify fd's `inotify wd:` lines (as test/support/inotify-watches.ts). */
export async function inotifyWatchCount(pid: number): Promise<number> {
  let count = 0;
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    if (target !== 'anon_inode:inotify') continue;
    const info = await readFile(`/proc/${pid}/fdinfo/${fd}`, 'utf8').catch(() => '');
    count += info.split('\n').filter((line) => line.startsWith('inotify wd:')).length;
  }
  return count;
}

/** pid → start time (with the pid, a process's identity) of the given processes still alive and not zombies. */
export function processIdentities(pids: number[]): Map<number, string> {
  const table = readProcTable();
  const alive = new Map<number, string>();
  for (const pid of pids) {
    const row = table?.get(pid);
    if (row && row.state !== 'Z' && row.state !== 'X') alive.set(pid, row.start);
  }
  return alive;
}

/**
 * One reading. The heap comes first and /proc after its answer: the daemon collects garbage before it answers, so
 * RSS is read from the collected process (read while the collection ran, it would count garbage about to go).
 */
export async function takeSample(pid: number, t: number, heap: () => Promise<NodeJS.MemoryUsage>): Promise<Sample> {
  const usage: Partial<NodeJS.MemoryUsage> = await heap().catch(() => ({}));
  const mib = (bytes: number | undefined) => (bytes === undefined ? Number.NaN : bytes / MiB);
  const status = await procStatus(pid);
  const below = descendantsOf(pid);
  const table = readProcTable();
  const zombies = below.filter((child) => table?.get(child)?.state === 'Z').length;
  return {
    t,
    rssMiB: status.kiB('VmRSS') / 1024,
    rssAnonMiB: status.kiB('RssAnon') / 1024,
    rssFileMiB: status.kiB('RssFile') / 1024,
    heapUsedMiB: mib(usage.heapUsed),
    heapTotalMiB: mib(usage.heapTotal),
    externalMiB: mib(usage.external),
    fds: await fdCount(pid),
    threads: status.count('Threads'),
    children: below.length,
    zombies,
    inotifyWatches: await inotifyWatchCount(pid),
  };
}

/** Samples every `intervalMs` until stopped; `mark(name)` records when a phase began (for the plot and the figures). */
export class Sampler {
  readonly samples: Sample[] = [];
  readonly marks: { name: string; t: number }[] = [];
  readonly #started = performance.now();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  #inFlight: Promise<void> = Promise.resolve();

  constructor(
    private readonly pid: number,
    private readonly heap: () => Promise<NodeJS.MemoryUsage>,
    private readonly intervalMs: number,
  ) {}

  /** Seconds since the sampler was made. */
  now(): number {
    return (performance.now() - this.#started) / 1000;
  }

  start(): void {
    const tick = () => {
      if (this.#stopped) return;
      this.#inFlight = this.sampleNow().then(() => {
        if (!this.#stopped) this.#timer = setTimeout(tick, this.intervalMs);
      });
    };
    tick();
  }

  async sampleNow(): Promise<Sample | undefined> {
    try {
      const sample = await takeSample(this.pid, this.now(), this.heap);
      this.samples.push(sample);
      return sample;
    } catch {
      return undefined; // the daemon is gone: the run's own checks say so
    }
  }

  mark(name: string): void {
    this.marks.push({ name, t: this.now() });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#inFlight;
  }
}

/** The descendants of `pid` by command line, "cmd ×n, …": what a count of children is made of (the report's evidence). */
export async function describeDescendants(pid: number): Promise<string> {
  const counts = new Map<string, number>();
  for (const child of descendantsOf(pid)) {
    const cmdline = await readFile(`/proc/${child}/cmdline`, 'utf8').catch(() => '');
    const name = cmdline.replace(/\0+$/, '').replace(/\0/g, ' ').slice(0, 80) || '?';
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts].map(([name, n]) => `${name} ×${n}`).join(', ');
}
