/**
 * The start-up sweep: walks the workspace and removes the temp files and staging folders our killed writers left
 * (./leftover-names.ts, ./leftover-verdict.ts), never a live writer's. Every folder is read — a write may land
 * anywhere, ignored folders included — but no link is followed and no staging folder entered (what is inside
 * belongs to its writer). Bounded: a few reads at a time, and a cap on the entries it looks at. The daemon runs it
 * after it listens (runtime/node/server.ts), off the path of its first requests.
 */
import type { Dirent } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { isInside, join } from './posix-path.ts';
import { parseLeftoverName } from './leftover-names.ts';
import { mayRemove, type VerdictContext } from './leftover-verdict.ts';
import { namespaceTag } from './node-writer-identity.ts';
import { writerState, type WriterState } from './writer-liveness.ts';

export interface SweepOptions {
  /** Folders read at once (default 4): enough to hide the disk's latency, not enough to crowd out the requests. */
  concurrency?: number;
  /** Stop after looking at this many entries (default 5 000 000); the result says so. */
  maxEntries?: number;
  /** For tests: the verdict's inputs. */
  verdict?: Partial<VerdictContext>;
}

export interface SweepResult {
  /** Absolute paths removed. */
  removed: string[];
  /** Entries named like ours that were kept (a live writer's, or not old enough). */
  kept: string[];
  /** Directory entries looked at. */
  entries: number;
  /** The entry cap was reached: part of the tree was not looked at. */
  truncated: boolean;
  durationMs: number;
}

/** `root`: the workspace, or it and the folders beside it writes also land in (an agents folder outside it). */
export async function sweepLeftovers(root: string | readonly string[], options: SweepOptions = {}): Promise<SweepResult> {
  const started = performance.now();
  const concurrency = options.concurrency ?? 4;
  const maxEntries = options.maxEntries ?? 5_000_000;
  const states = new Map<number, WriterState>(); // one /proc read per pid, however many entries it left
  const context: VerdictContext = {
    ownTag: options.verdict?.ownTag ?? namespaceTag(),
    nowMs: options.verdict?.nowMs ?? Date.now(),
    state:
      options.verdict?.state ??
      ((pid) => {
        let state = states.get(pid);
        if (state === undefined) states.set(pid, (state = writerState(pid)));
        return state;
      }),
  };
  const result: SweepResult = { removed: [], kept: [], entries: 0, truncated: false, durationMs: 0 };
  const roots = typeof root === 'string' ? [root] : root;
  // A folder inside another is walked as part of it, not twice.
  const queue = roots.filter((folder) => !roots.some((other) => other !== folder && isInside(other, folder)));

  async function visit(folder: string): Promise<void> {
    let entries: Dirent[];
    try {
      entries = await fsp.readdir(folder, { withFileTypes: true });
    } catch {
      return; // gone meanwhile, or not ours to read
    }
    for (const entry of entries) {
      if (result.entries >= maxEntries) {
        result.truncated = true;
        return;
      }
      result.entries += 1;
      const path = join(folder, entry.name);
      const type = entry.isDirectory() ? 'dir' : entry.isFile() ? 'file' : undefined;
      if (type === undefined) continue; // links (never followed), sockets, devices
      const name = parseLeftoverName(entry.name, type);
      if (name === undefined) {
        if (type === 'dir') queue.push(path);
        continue;
      }
      await judge(path, name);
    }
  }

  async function judge(path: string, name: NonNullable<ReturnType<typeof parseLeftoverName>>): Promise<void> {
    let changedAtMs: number;
    try {
      changedAtMs = (await fsp.lstat(path)).ctimeMs;
    } catch {
      return; // its writer finished (renamed or removed it) meanwhile
    }
    if (!mayRemove(name, changedAtMs, context)) {
      result.kept.push(path);
      return;
    }
    try {
      // rm does not follow links inside a staging folder; `force`: a concurrent removal is fine.
      await fsp.rm(path, { recursive: name.kind === 'staging-folder', force: true });
      result.removed.push(path);
    } catch {
      result.kept.push(path); // not removable by us (permissions): the next start tries again
    }
  }

  // A small pool over a growing queue: each worker takes the next folder until none is left and none is in flight.
  let active = 0;
  await new Promise<void>((resolve) => {
    const pump = () => {
      while (active < concurrency && queue.length > 0 && !result.truncated) {
        active += 1;
        void visit(queue.pop()!).finally(() => {
          active -= 1;
          pump();
        });
      }
      if (active === 0) resolve();
    };
    pump();
  });
  result.durationMs = performance.now() - started;
  return result;
}
