/**
 * What a change to the workspace means in one view (for `GET /workspace-files/changes?agent=` and any other
 * change consumer that serves a view). The feed reports where a write landed, as an absolute real path; an
 * agent's write lands in its copy (`<agents-dir>/<id>/…`), which the agent's view presents at the root.
 *
 * - The shared view: everything except the agents folder (the copies are not part of the workspace tree).
 * - An agent's view: a change in its own copy, at the overlaid path; a change to the shared tree only where
 *   the agent's view still shows the shared entry (a file the agent has its own copy of, or removed, did not
 *   change for it), or where it vanished from the view; nothing from other agents' copies or the agents
 *   folder's bookkeeping; a change outside the root as it is.
 * Versions are left as they are: a layer's version is what the overlay reports for that entry.
 */
import { isInside, join, relativeTo } from '../../adapters/fs/posix-path.ts';
import type { OverlayFileSystem } from '../../adapters/fs/overlay-file-system.ts';
import type { Change } from '../changes/change-feed.ts';

export function sharedViewOfChange(change: Change, agentsDir: string): Change | undefined {
  return isInside(agentsDir, change.absolutePath) ? undefined : change;
}

export async function agentViewOfChange(
  change: Change,
  view: { dir: string; overlay: OverlayFileSystem },
): Promise<Change | undefined> {
  const { root, upperRoot } = view.overlay;
  const path = change.absolutePath;
  if (isInside(upperRoot, path)) {
    const shown = path === upperRoot ? root : join(root, relativeTo(upperRoot, path));
    return { ...change, absolutePath: shown };
  }
  if (isInside(view.dir, path)) return undefined;
  if (!isInside(root, path)) return change;
  const layer = await view.overlay.layerOf(path);
  if (layer === 'lower') return change;
  return layer === undefined && 'absent' in change ? change : undefined;
}
