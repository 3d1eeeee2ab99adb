/**
 * The refusals a move and a copy share, checked before anything is written, in this order: the source
 * exists, the target is not the source itself, not inside the source, and not taken.
 */
import type { FileSystem, FileStat } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { isInside } from '../../adapters/fs/posix-path.ts';
import { WorkspaceError } from '../../runtime/errors/workspace-error.ts';

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

export function targetExists(path: string): WorkspaceError {
  return new WorkspaceError('conflict', `target already exists: ${path}`, { path });
}

/** The entry itself, or undefined when nothing is there (below a file counts as nothing there). */
async function lstatOrUndefined(fs: FileSystem, path: string): Promise<FileStat | undefined> {
  try {
    return await fs.lstat(path);
  } catch (error) {
    if (isFsError(error, 'not-found') || isFsError(error, 'not-directory')) return undefined;
    throw error;
  }
}
