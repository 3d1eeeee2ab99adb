/**
 * NodeFileSystem's recursive copy: files, folders and links (as links with the same text) copied to a path that
 * does not exist yet, many entries at a time.
 *
 * One entry at a time, a copy waits out a thread-pool round-trip per syscall: 10,101 entries took 12.8 s where
 * `cp -a` took 1.7 s. Here up to COPY_CONCURRENCY entries are in flight: enough to keep libuv's pool (4 threads
 * by default) busy while the main thread hands out the next ones, few enough not to flood a slow disk or
 * exhaust file descriptors (a file copy holds two).
 *
 * What callers rely on (core/tree-ops/copy-entry.ts stages a folder copy and removes it on failure):
 * - when the returned promise settles, nothing is still being written: after the first failure no new entry
 *   is started, the ones in flight are waited for, and only then is that first error thrown; an entry in flight
 *   writes nothing once the failure is known (its read or lstat under way finishes, its write is skipped), so
 *   what the caller then removes is as small as it can be;
 * - a folder gets its source's permission bits only once everything inside it is copied, so a read-only
 *   source folder does not stop the copy being filled;
 * - a special file (FIFO, socket, device) is refused with `invalid`, as before.
 * The readdir's entry types say what each entry is, so only folders cost a stat (for their mode).
 *
 * `beneath` (a confined copy, ./node-confinement.ts): every folder of both trees is held open while its entries are
 * copied and named through its descriptor, opened without following a link, and so is every file copied: a folder
 * swapped for a link meanwhile fails the copy (`loop`) rather than copying from, or into, where the link points.
 */
import * as fsc from 'node:fs';
import { constants, type Dirent } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { checkPath } from './arguments.ts';
import { FsError } from './fs-error.ts';
import { descriptorPath, openDescriptor } from './node-confinement.ts';
import { join } from './posix-path.ts';

/** Entries being copied at once. */
export const COPY_CONCURRENCY = 16;

/**
 * COPYFILE_EXCL: never replace what is there; FICLONE: share the blocks copy-on-write where the filesystem
 * can (btrfs, XFS; what `cp` does by default), else an ordinary copy. Both copy the mode bits.
 */
export const COPY_FILE_FLAGS = constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE;

/** What a Dirent and a Stats both tell. */
type EntryKind = Pick<Dirent, 'isFile' | 'isDirectory' | 'isSymbolicLink'>;

/** A folder being filled: its permission bits are applied when `pending` (its entries, plus itself) reaches 0. */
interface FolderCopy {
  target: string;
  mode: number;
  pending: number;
  parent: FolderCopy | undefined;
  /** `beneath`: the descriptors of the source and target folders, closed once the folder is complete. */
  held: number[];
}

interface CopyTask {
  source: string;
  target: string;
  /** What the source is, as its folder's listing (or, for the top entry, its lstat) said. */
  kind: EntryKind;
  /** Known for the top folder (from the caller's lstat); a nested folder is stat'ed when its task runs. */
  mode?: number;
  parent: FolderCopy | undefined;
  /** The target's own path: under `beneath`, `target` is named through a descriptor and the kernel sees no more. */
  named: string;
}

/** Copies the (not followed) entry at `source`, whose lstat is `stats`, to `target`, which must not exist. */
export async function copyTree(
  source: string,
  target: string,
  stats: EntryKind & { mode: number | bigint },
  { beneath = false, named = target }: { beneath?: boolean; named?: string } = {},
): Promise<void> {
  const mode = Number(stats.mode) & 0o7777;
  // Every descriptor still open, closed at the end whatever happened (a failure leaves folders incomplete).
  const open = new Set<number>();
  const release = (fds: number[]) => {
    for (const fd of fds) if (open.delete(fd)) fsc.close(fd, () => {});
  };
  const openFolder = async (path: string): Promise<number> => {
    const fd = await openDescriptor(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    open.add(fd);
    return fd;
  };
  // Depth-first (a stack): what waits to be copied is the listings of the folders on the current path, not a
  // whole level of the tree.
  const tasks: CopyTask[] = [{ source, target, kind: stats, mode, parent: undefined, named }];
  let failure: { error: unknown } | undefined;
  const stopped = () => failure !== undefined;

  const completed = async (folder: FolderCopy | undefined): Promise<void> => {
    for (let done = folder; done !== undefined && --done.pending === 0; done = done.parent) {
      await fsp.chmod(done.target, done.mode); // last: see the header
      release(done.held);
    }
  };

  const run = async (task: CopyTask): Promise<void> => {
    try {
      // Named through a descriptor, a copy could go deeper than any path can name (PATH_MAX): refuse it as the
      // kernel would have, so nothing is made that no later call could reach.
      if (beneath) checkPath(task.named);
      if (task.kind.isDirectory()) {
        const folderMode = task.mode ?? (await fsp.lstat(task.source)).mode & 0o7777;
        if (stopped()) return;
        await fsp.mkdir(task.target);
        const held = beneath ? [await openFolder(task.source), await openFolder(task.target)] : [];
        const [sourceFolder, targetFolder] = beneath ? held.map(descriptorPath) : [task.source, task.target];
        const entries = await fsp.readdir(sourceFolder!, { withFileTypes: true });
        const folder: FolderCopy = {
          target: task.target,
          mode: folderMode,
          pending: entries.length + 1,
          parent: task.parent,
          held,
        };
        for (const entry of entries) {
          const { name } = entry;
          tasks.push({ source: join(sourceFolder!, name), target: join(targetFolder!, name), kind: entry, parent: folder, named: join(task.named, name) });
        }
        await completed(folder); // its own share: an empty folder is complete now
      } else {
        await copyLeaf(task, beneath, stopped);
        await completed(task.parent);
      }
    } catch (error) {
      failure ??= { error };
    }
  };

  await new Promise<void>((resolve) => {
    let active = 0;
    const pump = () => {
      while (failure === undefined && active < COPY_CONCURRENCY && tasks.length > 0) {
        active++;
        void run(tasks.pop()!).then(() => {
          active--;
          pump();
        });
      }
      if (active === 0) resolve();
    };
    pump();
  });
  release([...open]);
  if (failure !== undefined) throw failure.error;
}

/** `stopped`: another entry failed while this one read its source; then nothing is written. */
async function copyLeaf({ source, target, kind }: CopyTask, beneath: boolean, stopped: () => boolean): Promise<void> {
  if (kind.isSymbolicLink()) {
    const text = await fsp.readlink(source, 'utf8');
    if (!stopped()) await fsp.symlink(text, target);
  } else if (kind.isFile()) {
    await copyFileBeneath(source, target, beneath, stopped);
  } else {
    throw new FsError('invalid', source, `invalid: cannot copy a special file: ${source}`);
  }
}

/**
 * copyFile of a regular file (the mode bits too). `beneath`: the source is opened without following a link (the
 * listing said it is a file; a link put there since is refused, not followed out) and copied from its descriptor.
 */
export async function copyFileBeneath(source: string, target: string, beneath: boolean, stopped = () => false): Promise<void> {
  if (!beneath) return fsp.copyFile(source, target, COPY_FILE_FLAGS);
  const handle = await fsp.open(source, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    if (!stopped()) await fsp.copyFile(descriptorPath(handle.fd), target, COPY_FILE_FLAGS);
  } catch (error) {
    // The failure goes up at once, the source's close behind it: waiting for the close (a thread-pool round trip)
    // would let other entries of the same copy finish opening and start writing before the copy knows it failed.
    handle.close().catch(() => {});
    throw error;
  }
  await handle.close();
}
