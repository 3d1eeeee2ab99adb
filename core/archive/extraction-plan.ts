/**
 * Where every entry of an archive lands, decided before anything is written: the whole archive is refused
 * if one entry would leave the destination, and a collision (two entries for one path, a file where the
 * archive or the disk needs a folder) is an error before the first byte is inflated.
 *
 * Containment is decided on real paths, as everywhere in the daemon: each folder on an entry's way is
 * resolved once (memoised: 10 000 files in one existing folder cost one resolution of it and one lstat per
 * file; in a folder the archive makes, none), and an existing symlink on the way is followed to where it
 * really points. An entry
 * lands inside the destination or nowhere, whatever links the destination already holds. An existing file
 * at an entry's path is overwritten (a link to a file inside the destination: its target is).
 */
import type { FileSystem, FileType } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { basename, dirname, isInside, join } from '../../adapters/fs/posix-path.ts';
import type { ZipEntryInfo } from '../../adapters/archive/zip-adapter.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import { safeEntryPath } from './entry-path.ts';

export interface PlannedFile {
  readonly entry: ZipEntryInfo;
  /** The real path the file is moved to. */
  readonly target: string;
}

export interface ExtractionPlan {
  readonly files: readonly PlannedFile[];
  /** Real paths of the folders to make (none exists yet), parents before children. */
  readonly folders: readonly string[];
  /** Every entry's path as the client named the destination (its real path joined with the entry's), in archive order. */
  readonly extracted: readonly string[];
}

export interface PlanOptions {
  fs: FileSystem;
  /** The destination's real path (it may not exist yet). */
  destination: string;
  /** Follows the links on a path to its real path inside the workspace (the context's `resolve`). */
  resolve(path: string): Promise<string>;
  /** A real folder no entry may land in, even inside the destination (the agents folder). */
  excluded?: string;
}

interface Place {
  real: string;
  type: FileType | undefined;
}

export async function planExtraction(entries: readonly ZipEntryInfo[], options: PlanOptions): Promise<ExtractionPlan> {
  const { fs, destination } = options;
  // What the archive puts at each real path, to find two entries that collide there.
  const claimed = new Map<string, 'file' | 'dir'>();
  const missingFolders = new Set<string>();
  const folders = new Map<string, Promise<Place>>();

  /** The real place of `path` (lexical, below the destination), refusing one that leaves the destination. */
  async function place(path: string, entry: ZipEntryInfo): Promise<Place> {
    const parent = dirname(path) === destination ? undefined : await folder(dirname(path), entry);
    const candidate = join(parent?.real ?? destination, basename(path));
    // Nothing is below a folder that does not exist yet: a fresh extraction costs no lookups per file.
    let type = parent && parent.type === undefined ? undefined : await typeAt(fs, candidate);
    let real = candidate;
    if (type === 'symlink') {
      real = await resolveLink(options, candidate, entry);
      if (!isInside(destination, real)) throw invalidEntry(entry.name);
      type = await typeAt(fs, real); // resolved: the thing itself, no link left to follow
      // A dangling link's target is made like any missing path, but only in a folder that exists: the
      // folders this archive makes are the ones on its own paths.
      if (type === undefined && (await typeAt(fs, dirname(real))) !== 'dir') {
        throw cannotExtract(entry.name, `${candidate} is a link to a missing folder`);
      }
    }
    // Without a link, a plain name below a real folder inside the destination is inside it too.
    if (options.excluded !== undefined && isInside(options.excluded, real)) throw invalidEntry(entry.name);
    return { real, type };
  }

  /** A folder the entry needs: resolved once per path, claimed as a folder, and a folder on disk if it exists. */
  function folder(path: string, entry: ZipEntryInfo): Promise<Place> {
    let known = folders.get(path);
    if (!known) {
      known = place(path, entry).then((found) => {
        claim(found.real, 'dir', entry);
        if (found.type === undefined) missingFolders.add(found.real);
        else if (found.type !== 'dir') throw notAFolder(entry.name, found.real);
        return found;
      });
      folders.set(path, known);
    }
    return known;
  }

  function claim(real: string, kind: 'file' | 'dir', entry: ZipEntryInfo): void {
    const earlier = claimed.get(real);
    if (earlier === 'file' || (earlier === 'dir' && kind === 'file')) {
      throw new WorkspaceError('bad-request', `Invalid zip entry: ${entry.name} (another entry is already at that path)`, {
        name: entry.name,
      });
    }
    claimed.set(real, kind);
  }

  const files: PlannedFile[] = [];
  const extracted: string[] = [];
  for (const entry of entries) {
    const relative = safeEntryPath(entry.name);
    if (relative === undefined || entry.kind === 'symlink' || entry.kind === 'other') throw invalidEntry(entry.name);
    if (relative === '') {
      if (entry.kind === 'dir') continue; // "./": the destination itself
      throw invalidEntry(entry.name);
    }
    const path = join(destination, relative);
    extracted.push(path);
    if (entry.kind === 'dir') {
      await folder(path, entry);
      continue;
    }
    const found = await place(path, entry);
    if (found.type === 'dir') throw cannotExtract(entry.name, `${found.real} is a folder`, 'conflict');
    claim(found.real, 'file', entry);
    files.push({ entry, target: found.real });
  }
  const sorted = [...missingFolders].sort((a, b) => a.length - b.length);
  return { files, folders: sorted, extracted };
}

async function resolveLink(options: PlanOptions, link: string, entry: ZipEntryInfo): Promise<string> {
  try {
    return await options.resolve(link);
  } catch (error) {
    if (error instanceof WorkspaceError && error.code === 'outside-workspace') throw invalidEntry(entry.name);
    throw error;
  }
}

/** The entry's own type (links not followed), undefined when nothing is there. */
async function typeAt(fs: FileSystem, path: string): Promise<FileType | undefined> {
  try {
    return (await fs.lstat(path)).type;
  } catch (error) {
    if (isFsError(error, 'not-found') || isFsError(error, 'not-directory')) return undefined;
    throw error;
  }
}

export function invalidEntry(name: string): WorkspaceError {
  return new WorkspaceError('bad-request', `Invalid zip entry: ${name}`, { name });
}

function notAFolder(name: string, path: string): WorkspaceError {
  return cannotExtract(name, `${path} is not a folder`, 'conflict');
}

/** An entry that cannot be written where it must go, or whose data is not what it declares. */
export function cannotExtract(name: string, reason: string, code: 'conflict' | 'bad-request' = 'bad-request'): WorkspaceError {
  return new WorkspaceError(code, `Cannot extract ${name}: ${reason}`, { name });
}
