import { isInside, relativeTo } from '../../adapters/fs/posix-path.ts';
import { listFolder, type FolderEntry } from '../../core/listing/list-folder.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { parseQuery } from '../../runtime/validation.ts';
import { failingFor, locateEntry, pathQuery, requireDirectory } from './gates.ts';

type ListedEntry = { name: string; type: 'file' | 'directory' | 'other'; size?: number };

/**
 * `GET /workspace-files/list?path=[&agent=]` — a folder's direct children `{path, entries, truncated}`, in
 * name order, dotfiles included, the agents folder never. `path` is root-relative ("" for the root).
 *
 * A cut listing holds the first maxEntries children by name, and costs one readdir and the stats of those
 * entries only, not one per child of a huge folder (core/listing/list-folder.ts).
 */
export async function workspaceFilesList(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { path, agent } = parseQuery(request, pathQuery);
  return failingFor(path, () => listFolderAt(ctx, path, agent));
}

async function listFolderAt(ctx: WorkspaceContext, path: string, agent: string | undefined): Promise<Response> {
  const folder = await locateEntry(ctx, path, agent);
  const agentsDir = ctx.agents.dir;
  // Agents' private copies are not part of the tree: their folder is not listed, nor is anything in it.
  if (isInside(agentsDir, folder.absolutePath)) throw new WorkspaceError('not-found', 'no such file or directory');
  requireDirectory(folder.stat);
  const { fs, root } = folder.view;
  const listing = await listFolder(fs, folder.absolutePath, {
    maxEntries: ctx.limits.listMaxEntries,
    exclude: agentsDir,
    confineTo: root,
  });
  return jsonResponse({
    path: relativeTo(root, folder.absolutePath),
    entries: listing.entries.map(toListedEntry),
    truncated: listing.truncated,
  });
}

/**
 * A child as the product lists it: a link as its target's type, and one that is dangling, loops or leaves
 * the workspace as `other` (what is outside is not ours to describe); sizes for files only.
 */
function toListedEntry({ name, kind, size }: FolderEntry): ListedEntry {
  if (kind === 'dir') return { name, type: 'directory' };
  if (kind === 'file') return size === undefined ? { name, type: 'file' } : { name, type: 'file', size };
  return { name, type: 'other' };
}
