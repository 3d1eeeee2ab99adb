/**
 * `mkdir -p` with an undo. `POST /workspace/dir` is exactly this (a folder already there is success, so a
 * client may retry); a move or copy makes the folder it lands in this way and, if it then fails, undoes it,
 * so a refused request leaves no empty folders behind.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { dirname } from '../../adapters/fs/posix-path.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';

/** Removes, deepest first, the folders a `makeFolders` call created (those still empty). */
export type UndoFolders = () => Promise<void>;

/**
 * Makes `folder` and its missing ancestors. Something other than a folder at the path or on the way (a file,
 * a dangling link) is a `conflict` naming it, as `label(path)` shows it to the client.
 */
export async function makeFolders(fs: FileSystem, folder: string, label: (path: string) => string): Promise<UndoFolders> {
  const missing: string[] = [];
  for (let at = folder; at !== '/'; at = dirname(at)) {
    const type = await typeOrMissing(fs, at);
    if (type === 'dir') break;
    if (type !== undefined) throw inTheWay(label(at));
    missing.push(at);
  }
  if (missing.length === 0) return async () => {};
  try {
    await fs.mkdir(folder, { recursive: true });
  } catch (error) {
    // Someone put a file on the way since we looked, or a dangling link sits there (mkdir will not follow it).
    if (isFsError(error, 'exists') || isFsError(error, 'not-directory') || isFsError(error, 'not-found')) {
      throw inTheWay(label(folder));
    }
    throw error;
  }
  return async () => {
    for (const created of missing) {
      try {
        await fs.remove(created);
      } catch {
        return; // not empty (someone wrote there meanwhile) or gone: leave it and its parents
      }
    }
  };
}

/** The entry's type following links (a folder behind a link is a folder), undefined when nothing is there. */
async function typeOrMissing(fs: FileSystem, path: string): Promise<string | undefined> {
  try {
    return (await fs.stat(path)).type;
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
  // stat says not-found for a dangling link too: that name is taken all the same.
  try {
    return (await fs.lstat(path)).type;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** Missing, or below a file (not-directory): either way the caller walks up to find what is there. */
function isMissing(error: unknown): boolean {
  return isFsError(error, 'not-found') || isFsError(error, 'not-directory');
}

export function inTheWay(path: string): WorkspaceError {
  return new WorkspaceError('conflict', `not a folder: ${path}`, { path });
}
