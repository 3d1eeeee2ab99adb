/**
 * Move (or rename) one entry. Never a silent overwrite: a target that exists is a conflict, whatever it is —
 * a client that means "replace" deletes first, so it cannot lose a folder by mistyping a name. Missing
 * folders above the target are made (as `PUT /api/file` and upload do), and removed again if the move fails.
 */
import type { WorkspaceView } from '../agents/workspace-view.ts';
import { displayPath } from './display-path.ts';
import { checkTransfer, landAt } from './transfer-checks.ts';

/** `from` and `to` are entry paths (core/tree-ops/resolve-entry.ts): the last segment is not followed. */
export async function moveEntry(view: WorkspaceView, from: string, to: string): Promise<void> {
  const label = (path: string) => displayPath(view.root, path);
  await checkTransfer(view.fs, from, to, 'move', label);
  await landAt(view.fs, to, label, () => view.fs.rename(from, to));
}
