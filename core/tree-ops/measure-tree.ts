/**
 * A bounded survey of one entry and everything under it: how many entries, how many bytes, and whether it
 * holds anything that cannot be copied. It is what a copy asks before it writes anything, so it must never
 * cost more than the caps it checks: the walk stops as soon as either cap is passed, no listing is read past
 * what could still fit under the entry cap, and it holds one listing plus a stack of pending folders (each
 * already counted, so bounded by the entry cap).
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { join } from '../../adapters/fs/posix-path.ts';

export interface TreeCaps {
  maxEntries: number;
  maxBytes: number;
}

export interface TreeMeasure {
  /** Entries seen, the top one included (exact when nothing was exceeded, else where the walk stopped). */
  entries: number;
  /** Bytes of the regular files seen (symlinks and folders count 0). */
  bytes: number;
  /** Which cap was passed first; the walk stopped there. */
  exceeded?: 'entries' | 'bytes';
  /** The first entry that is neither a file, a folder nor a symlink (a FIFO, a socket, a device). */
  special?: string;
}

/**
 * Measures `path` without following symlinks (a link counts as one entry, its target is not visited, so a
 * link cycle or a link to a huge folder elsewhere costs nothing). Stops at the first cap passed or the first
 * special file.
 */
export async function measureTree(fs: FileSystem, path: string, caps: TreeCaps): Promise<TreeMeasure> {
  const top = await fs.lstat(path);
  const measure: TreeMeasure = { entries: 0, bytes: 0 };
  if (count(measure, path, top.type, top.size, caps)) return measure;
  if (top.type !== 'dir') return measure;
  const pending = [path];
  while (pending.length > 0) {
    const folder = pending.pop()!;
    // Never more names than could still fit: a folder of a million entries costs what is left of the cap.
    const room = caps.maxEntries - measure.entries;
    for (const entry of await fs.readdir(folder, { limit: room + 1 })) {
      const child = join(folder, entry.name);
      // readdir already says what a child is; only files need an lstat, for their size.
      const size = entry.type === 'file' ? (await fs.lstat(child)).size : 0;
      if (count(measure, child, entry.type, size, caps)) return measure;
      if (entry.type === 'dir') pending.push(child);
    }
  }
  return measure;
}

/** Adds one entry; true when the walk must stop here. */
function count(measure: TreeMeasure, path: string, type: string, size: number, caps: TreeCaps): boolean {
  if (type === 'other') {
    measure.special = path;
    return true;
  }
  measure.entries += 1;
  measure.bytes += type === 'file' ? size : 0;
  if (measure.entries > caps.maxEntries) measure.exceeded = 'entries';
  else if (measure.bytes > caps.maxBytes) measure.exceeded = 'bytes';
  return measure.exceeded !== undefined;
}
