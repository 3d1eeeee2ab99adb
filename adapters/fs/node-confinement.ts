/**
 * Keeps NodeFileSystem inside the folders it is confined to while the tree changes under a request
 * (docs/architecture.md#confinement).
 *
 * Containment is decided above the adapter on real paths (core/paths/resolve-inside-root.ts), and the adapter is
 * then handed that real path. Between the two, another process (an agent's shell, a checkout) can replace a folder
 * on the way with a link out of the root: opening the same path string then reads, lists or writes outside. Linux
 * has openat2(RESOLVE_BENEATH) for this, but Node exposes no *at() calls. What it does expose is enough:
 *
 * - an open descriptor's real location is `/proc/self/fd/N`'s link text, so a read checks the very file it opened
 *   before a byte is read (`checkOpened`);
 * - `/proc/self/fd/N/name` is looked up *inside the folder descriptor N holds*, whatever its path has become, so
 *   a write, a move or a removal opens the folder (checked), then works on `name` in it (`pinFolder`): a folder
 *   swapped above it afterwards changes nothing;
 * - folders created or removed level by level (`makeFolders`, `removeTreeBeneath`) hold each level's descriptor,
 *   and removal never steps into a link (O_NOFOLLOW);
 * - a process started in a folder is given the folder's descriptor as its working folder (`pinWorkingFolder`).
 *
 * Only paths lexically inside a confining folder are checked; what the daemon reads elsewhere (templates, its
 * cache) is not. Links inside the folder keep working: the check is where the descriptor lands, not how. Without
 * `/proc` (not Linux, or not mounted) there is nothing to check with, and paths are used as they are.
 */
import * as fsc from 'node:fs';
import { constants } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { ConfinedFolders, escaped } from './confined-folders.ts';
import { FsError } from './fs-error.ts';
import { toFsError } from './node-fs-error.ts';
import { basename, dirname, isInside, join, normalize, segments } from './posix-path.ts';

const PROC_FD = '/proc/self/fd';
/** Checked once: a sandbox without /proc mounted gets the unconfined behaviour, not a daemon that fails. */
const HAS_PROC_FD = (() => {
  try {
    return fsc.statSync(PROC_FD).isDirectory();
  } catch {
    return false;
  }
})();

const OPEN_FOLDER = constants.O_RDONLY | constants.O_DIRECTORY;
/** Working folders a chdir fails on as on a missing folder, and as on a file: nothing anyone can create there. */
const MISSING_FOLDER = `${PROC_FD}/-1`;
const NOT_A_FOLDER = '/proc/self/stat';
const OPEN_FOLDER_NO_LINK = OPEN_FOLDER | constants.O_NOFOLLOW;

/** A folder held open: `at(name)` names an entry in it, however the folder's own path changes meanwhile. */
export interface PinnedFolder {
  /** The folder itself (its descriptor's path, or the plain path when nothing is confined). */
  readonly self: string;
  /** Held by a descriptor (the path was confined): entries below are removed and copied without following links. */
  readonly confined: boolean;
  at(name: string): string;
  release(): void;
}

/** The descriptor's path: `/proc/self/fd/N`, which always means the folder (or file) N holds. */
export function descriptorPath(fd: number): string {
  return `${PROC_FD}/${fd}`;
}

/**
 * Whether the open descriptor `fd` is inside `folder` (a real path), for readers that open files themselves (the
 * search workers). True where there is no /proc to tell.
 */
export function landedInside(fd: number, folder: string): boolean {
  if (!HAS_PROC_FD) return true;
  try {
    return isInside(folder, realOf(fd));
  } catch {
    return false;
  }
}

/** Where the descriptor is: its /proc link text, without the " (deleted)" of a file removed while open. */
function realOf(fd: number): string {
  const real = fsc.readlinkSync(descriptorPath(fd));
  return real.endsWith(' (deleted)') ? real.slice(0, -' (deleted)'.length) : real;
}

/**
 * A process's working folder, held for its start: `cwd` (inside `within`) opened and checked, and named by the
 * descriptor (`/proc/self/fd/N`): a child inherits the descriptor, so its chdir (before exec, where O_CLOEXEC has
 * not closed it yet) resolves to that very folder whatever its path has become. Release once spawn has returned:
 * the child holds its own copy. An unconfined `cwd` (no `within`, or outside it) comes back as it is. One that
 * cannot be opened as a folder is never handed on as a path — the child would resolve it again, through whatever
 * link is there by then (a link being replaced is missing for an instant: git once fetched in the repository a
 * flipped link led to): missing comes back as a path that is missing (ENOENT), a file as one under a file
 * (ENOTDIR), so the spawn fails as it did on the path itself; anything else is thrown as an FsError. Throws
 * `permission-denied` when the folder lands outside `within`.
 */
export function pinWorkingFolder(cwd: string, within: string | undefined): { cwd: string; release(): void } {
  const asItIs = { cwd, release: () => {} };
  if (within === undefined || !HAS_PROC_FD || !isInside(within, normalize(cwd))) return asItIs;
  let fd: number;
  try {
    fd = fsc.openSync(cwd, OPEN_FOLDER);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { cwd: MISSING_FOLDER, release: () => {} };
    if (code === 'ENOTDIR') return { cwd: NOT_A_FOLDER, release: () => {} };
    throw toFsError(error, cwd);
  }
  if (!landedInside(fd, within)) {
    fsc.closeSync(fd);
    throw escaped(cwd, within);
  }
  const pinned = pinnedAt(fd);
  return { cwd: pinned.self, release: pinned.release };
}

export class Confinement {
  readonly #folders = new ConfinedFolders();

  /** From now on, a path inside `folder` may not lead outside it. `folder` must be a real, normalised path. */
  add(folder: string): void {
    if (HAS_PROC_FD) this.#folders.add(folder);
  }

  /** The folder `path` must stay inside, or undefined when it is not confined. */
  folderOf(path: string): string | undefined {
    return this.#folders.empty ? undefined : this.#folders.folderOf(path);
  }

  /**
   * Throws (permission-denied) when the descriptor `fd`, opened for `path`, is outside the folder confining
   * `path`. The link text is read synchronously: /proc answers from memory, never the disk, and a thread-pool
   * round-trip would cost more than the call (this runs on every read).
   */
  checkOpened(fd: number, path: string, folder = this.folderOf(path)): void {
    if (folder === undefined) return;
    let real: string;
    try {
      real = realOf(fd);
    } catch {
      throw escaped(path, folder);
    }
    this.#folders.check(path, real, folder);
  }

  /**
   * Opens the folder `path` (links followed, as the caller resolved them) and checks where it landed, for work on
   * the entries in it. Unconfined paths come back as they are, with nothing to release.
   */
  async pinFolder(path: string, confining = path): Promise<PinnedFolder> {
    const folder = this.folderOf(confining);
    if (folder === undefined) return { self: path, confined: false, at: (name) => join(path, name), release: () => {} };
    return this.#open(path, OPEN_FOLDER, confining, folder);
  }

  /**
   * pinFolder of the folder holding `path`, for work on `path`'s own entry: `{pinned, name}`. `confining` is the
   * path the caller was asked for, when `path` is where it resolved to.
   */
  async pinParent(path: string, confining = path): Promise<{ pinned: PinnedFolder; name: string }> {
    const normal = normalize(path);
    return { pinned: await this.pinFolder(dirname(normal), normalize(confining)), name: basename(normal) };
  }

  /**
   * mkdir -p of `path`, one level at a time inside its confining folder: each level is created in the folder held
   * open above it and opened in turn (a link on the way is followed only if it stays inside). Returns the first
   * folder created (undefined when all existed), as fs.mkdir's recursive form does.
   */
  async makeFolders(path: string): Promise<string | undefined> {
    const target = normalize(path);
    const folder = this.folderOf(target);
    if (folder === undefined) return fsp.mkdir(target, { recursive: true });
    let current = folder;
    let pinned = await this.#open(folder, OPEN_FOLDER, folder, folder);
    let first: string | undefined;
    try {
      for (const name of segments(target.slice(folder.length))) {
        current = join(current, name);
        try {
          await fsp.mkdir(pinned.at(name));
          first ??= current;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
        let next: PinnedFolder;
        try {
          next = await this.#open(pinned.at(name), OPEN_FOLDER, current, folder);
        } catch (error) {
          // Something that is not a folder is there: the folder asked for exists as something else (EEXIST, as
          // mkdir -p says), or a folder on the way is not one.
          if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR') throw error;
          throw current === target ? new FsError('exists', target) : new FsError('not-directory', current);
        }
        pinned.release();
        pinned = next;
      }
    } finally {
      pinned.release();
    }
    return first;
  }

  async #open(path: string, flags: number, reported: string, folder: string): Promise<PinnedFolder> {
    const fd = await openDescriptor(path, flags);
    try {
      this.checkOpened(fd, reported, folder);
    } catch (error) {
      fsc.close(fd, () => {});
      throw error;
    }
    return pinnedAt(fd);
  }
}

/** fs.open as a promise of the bare descriptor (no FileHandle: these are closed by hand, in order). */
export function openDescriptor(path: string, flags: number): Promise<number> {
  return new Promise((resolve, reject) => fsc.open(path, flags, (error, fd) => (error ? reject(error) : resolve(fd))));
}

function pinnedAt(fd: number): PinnedFolder {
  const self = descriptorPath(fd);
  let open = true;
  return {
    self,
    confined: true,
    at: (name) => `${self}/${name}`,
    release: () => {
      if (open) fsc.close(fd, () => {});
      open = false;
    },
  };
}

/**
 * rm -r of the entry at `path` (a pinned folder's entry, or a plain path) without ever stepping through a link:
 * each folder is opened with O_NOFOLLOW and emptied through its descriptor, so a folder below swapped for a link
 * meanwhile loses the link, never what it points at. Gone already is fine.
 */
export async function removeTreeBeneath(path: string): Promise<void> {
  let fd: number;
  try {
    fd = await openDescriptor(path, OPEN_FOLDER_NO_LINK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    // A link (ELOOP) or anything else that is not a folder: the entry itself goes.
    if (code === 'ELOOP' || code === 'ENOTDIR') return unlinkIfThere(path);
    throw error;
  }
  const self = descriptorPath(fd);
  try {
    for (const entry of await fsp.readdir(self, { withFileTypes: true })) {
      const child = `${self}/${entry.name}`;
      if (entry.isDirectory()) await removeTreeBeneath(child);
      else await unlinkIfThere(child).catch((error: NodeJS.ErrnoException) => (error.code === 'EISDIR' ? removeTreeBeneath(child) : Promise.reject(error)));
    }
  } finally {
    fsc.close(fd, () => {});
  }
  try {
    await fsp.rmdir(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

async function unlinkIfThere(path: string): Promise<void> {
  try {
    await fsp.unlink(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
