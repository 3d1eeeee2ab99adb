import type { DirEntry, FileSystem } from '../../adapters/fs/file-system.ts';
import { dirname, isInside, join, relativeTo } from '../../adapters/fs/posix-path.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { parseQuery } from '../../runtime/validation.ts';
import { locateEntry, pathQuery, requireDirectory } from './gates.ts';

type ListedEntry = { name: string; type: 'file' | 'directory' | 'other'; size?: number };

/**
 * `GET /workspace-files/list?path=[&agent=]` — a folder's direct children `{path, entries, truncated}`, in
 * name order, dotfiles included, the agents folder never. `path` is root-relative ("" for the root).
 *
 * The work is bounded, not just the answer (the original bounded only the answer: docs/workspace-files.md#list):
 * the backend is asked for maxEntries + 1 names and stops reading the folder there, and only the entries
 * returned are stat'ed. The price: in a truncated listing, WHICH names you get is the backend's order (on disk,
 * the kernel's), sorted afterwards — not the alphabetically first ones, which would need the whole folder.
 */
export async function workspaceFilesList(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { path, agent } = parseQuery(request, pathQuery);
  const folder = await locateEntry(ctx, path, agent);
  const agentsDir = ctx.agents.dir;
  // Agents' private copies are not part of the tree: their folder is not listed, nor is anything in it.
  if (isInside(agentsDir, folder.absolutePath)) throw new WorkspaceError('not-found', 'no such file or directory');
  requireDirectory(folder.stat);
  const { fs, root } = folder.view;
  const max = ctx.limits.listMaxEntries;
  // One more to learn `truncated`, and one more still where the agents folder may take a place.
  const holdsAgentsDir = dirname(agentsDir) === folder.absolutePath;
  const found = (await fs.readdir(folder.absolutePath, { limit: max + 1 + (holdsAgentsDir ? 1 : 0) })).filter(
    (entry) => join(folder.absolutePath, entry.name) !== agentsDir,
  );
  found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const kept = found.slice(0, max);
  const described = await Promise.all(
    kept.map((entry) => describe(fs, root, join(folder.absolutePath, entry.name), entry)),
  );
  return jsonResponse({
    path: relativeTo(root, folder.absolutePath),
    entries: described.filter((entry) => entry !== undefined),
    truncated: found.length > max,
  });
}

/**
 * A child as workspace-files lists it: a symlink as its target's type (a dangling one, or one leaving the workspace,
 * as `other`: what is outside is not ours to describe); sizes for files only. An entry gone since the listing
 * is left out.
 */
async function describe(fs: FileSystem, root: string, path: string, entry: DirEntry): Promise<ListedEntry | undefined> {
  const { name } = entry;
  if (entry.type === 'dir') return { name, type: 'directory' };
  if (entry.type === 'other') return { name, type: 'other' };
  try {
    if (entry.type === 'file') return { name, type: 'file', size: (await fs.lstat(path)).size };
    if (!isInside(root, await fs.realpath(path))) return { name, type: 'other' };
    const target = await fs.stat(path);
    if (target.type === 'dir') return { name, type: 'directory' };
    return target.type === 'file' ? { name, type: 'file', size: target.size } : { name, type: 'other' };
  } catch {
    // A dangling or looping link is listed as `other`; a plain entry that vanished is not listed.
    return entry.type === 'symlink' ? { name, type: 'other' } : undefined;
  }
}
