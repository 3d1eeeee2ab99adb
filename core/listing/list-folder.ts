/**
 * One folder's direct children, dialect-neutral: what `GET /api/files` and `/workspace-files/list` render,
 * each in its own shape (docs/ori.md, docs/workspace-files.md#list).
 *
 * The work follows the answer, not the folder: `readdir` gives every name with its own type at once, the
 * names are sorted and cut at `maxEntries`, and only the entries kept are stat'ed (a folder or a FIFO needs
 * none: its type is already known). A folder of 200 000 entries listed at 2000 costs one readdir, one sort
 * and about 2000 stats. Sorting before the cut is what makes a cut listing the first entries by name rather
 * than whichever the storage yields first.
 */
import type { DirEntry, FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { isInside, join } from '../../adapters/fs/posix-path.ts';
import { mapLimited } from './map-limited.ts';

/** Stats in flight at once: enough to keep a disk busy without a promise per entry of a huge folder. */
const STATS_AT_ONCE = 32;

export interface FolderEntry {
  name: string;
  /**
   * What the entry is, a symlink followed to what it points at; `symlink` is a link that was not followed:
   * dangling, a loop, or its real target outside `confineTo`.
   */
  kind: 'file' | 'dir' | 'symlink' | 'other';
  /** A file's size in bytes (its target's, through a link); absent for anything else, or if it could not be read. */
  size?: number;
}

export interface FolderListing {
  /** By name (UTF-16 code units, so `Z` before `a`), at most `maxEntries`. */
  entries: FolderEntry[];
  /** Entries were left out past `maxEntries`. */
  truncated: boolean;
}

export interface ListFolderOptions {
  /** The most entries to return (default: all). */
  maxEntries?: number;
  /** The absolute path of a child never listed, which takes no place under the cap (the agents folder). */
  exclude?: string;
  /** Links whose real target is not inside this folder are not followed (reported as `symlink`). */
  confineTo?: string;
}

/**
 * Lists the folder at absolute path `folder`. Errors reading the folder itself propagate (FsError:
 * not-found, not-directory, permission-denied…); an entry that vanishes between the readdir and its stat
 * is left out.
 */
export async function listFolder(fs: FileSystem, folder: string, options: ListFolderOptions = {}): Promise<FolderListing> {
  const { maxEntries = Infinity, exclude, confineTo } = options;
  const found = (await fs.readdir(folder)).filter((entry) => exclude === undefined || join(folder, entry.name) !== exclude);
  found.sort(byName);
  const kept = found.length > maxEntries ? found.slice(0, maxEntries) : found;
  const described = await mapLimited(kept, STATS_AT_ONCE, (entry) => describeEntry(fs, join(folder, entry.name), entry, confineTo));
  return { entries: described.filter((entry) => entry !== undefined), truncated: found.length > kept.length };
}

function byName(a: DirEntry, b: DirEntry): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

async function describeEntry(
  fs: FileSystem,
  path: string,
  { name, type }: DirEntry,
  confineTo: string | undefined,
): Promise<FolderEntry | undefined> {
  if (type === 'dir' || type === 'other') return { name, kind: type };
  if (type === 'symlink') return followLink(fs, path, name, confineTo);
  try {
    const stat = await fs.lstat(path);
    return stat.type === 'file' ? { name, kind: 'file', size: stat.size } : { name, kind: stat.type };
  } catch (error) {
    if (!isFsError(error)) throw error;
    // Gone since the readdir: not listed. Present but unreadable: listed as what readdir said, without a size.
    return isFsError(error, 'not-found') ? undefined : { name, kind: 'file' };
  }
}

/** A link as its target's kind; dangling, looping or (with `confineTo`) leaving it: the link's own kind. */
async function followLink(fs: FileSystem, path: string, name: string, confineTo: string | undefined): Promise<FolderEntry> {
  try {
    let target = path;
    if (confineTo !== undefined) {
      // What is outside is not ours to describe, so it is not stat'ed either.
      target = await fs.realpath(path);
      if (!isInside(confineTo, target)) return { name, kind: 'symlink' };
    }
    const stat = await fs.stat(target);
    if (stat.type === 'file') return { name, kind: 'file', size: stat.size };
    return { name, kind: stat.type === 'dir' ? 'dir' : 'other' };
  } catch (error) {
    if (!isFsError(error)) throw error;
    return { name, kind: 'symlink' };
  }
}
