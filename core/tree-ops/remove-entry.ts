/**
 * Delete one entry and everything under it. The entry itself is removed (a symlink, not its target: the
 * backends' `remove` acts on the link), so nothing outside the workspace can be reached through a link.
 */
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import type { WorkspaceView } from '../agents/workspace-view.ts';
import { displayPath } from './display-path.ts';

/** `entry` is an entry path (core/tree-ops/resolve-entry.ts): the last segment is not followed. */
export async function removeEntry(view: WorkspaceView, entry: string): Promise<void> {
  try {
    await view.fs.remove(entry, { recursive: true });
  } catch (error) {
    if (isFsError(error, 'not-found') || isFsError(error, 'not-directory')) {
      const path = displayPath(view.root, entry);
      throw new WorkspaceError('not-found', `no such file or folder: ${path}`, { path });
    }
    throw error;
  }
}
