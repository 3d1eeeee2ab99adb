/**
 * What a move and a copy share: the refusals checked before anything is written, in this order: the source
 * exists, the target is not the source itself, not inside the source, and not taken; then landing at the
 * target, which leaves no folders behind when it fails.
 */
import type { FileSystem, FileStat } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { dirname, isInside } from '../../adapters/fs/posix-path.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import { makeFolders } from './make-folders.ts';

/** Returns the source's own stat (links not followed). */
export async function checkTransfer(
  fs: FileSystem,
  from: string,
  to: string,
  action: 'move' | 'copy',
  label: (path: string) => string,
): Promise<FileStat> {
  const source = await lstatOrUndefined(fs, from);
  if (!source) throw new WorkspaceError('not-found', `source does not exist: ${label(from)}`, { path: label(from) });
  if (from === to) throw new WorkspaceError('bad-request', `cannot ${action} ${label(from)} onto itself`, { path: label(from) });
  if (source.type === 'dir' && isInside(from, to)) {
    throw new WorkspaceError('bad-request', `cannot ${action} ${label(from)} into its own subfolder ${label(to)}`, {
      from: label(from),
      to: label(to),
    });
  }
  if (await lstatOrUndefined(fs, to)) throw targetExists(label(to));
  return source;
}

/**
 * Makes the folders `to` lands in and runs `place` (the rename or the copy); if it fails, removes the folders
 * it made. A target that appeared since `checkTransfer` (`exists`) is the same conflict.
 */
export async function landAt(
  fs: FileSystem,
  to: string,
  label: (path: string) => string,
  place: () => Promise<void>,
): Promise<void> {
  const undoFolders = await makeFolders(fs, dirname(to), label);
  try {
    await place();
  } catch (error) {
    await undoFolders();
    if (isFsError(error, 'exists')) throw targetExists(label(to));
    throw error;
  }
}

export function targetExists(path: string): WorkspaceError {
  return new WorkspaceError('conflict', `target already exists: ${path}`, { path });
}

/** The entry itself, or undefined when nothing is there (below a file counts as nothing there). */
export async function lstatOrUndefined(fs: FileSystem, path: string): Promise<FileStat | undefined> {
  try {
    return await fs.lstat(path);
  } catch (error) {
    if (isFsError(error, 'not-found') || isFsError(error, 'not-directory')) return undefined;
    throw error;
  }
}
