/**
 * Where a delete, move or copy acts: the entry itself. Unlike `view.resolve` (which follows every link, as a
 * read or write of content must), the last segment is not followed, so deleting or moving a symlink acts on
 * the link and never on its target — also when the target is outside the workspace, since the link itself
 * is inside it. Everything above the last segment is resolved with containment as usual: `..`, absolute
 * paths outside the root and links out of it are refused (`outside-workspace`) before anything is touched.
 */
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { basename, dirname, join, normalize } from '../../adapters/fs/posix-path.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import type { WorkspaceView } from '../agents/workspace-view.ts';

/**
 * The absolute path of the entry `path` names in `view`. The workspace root in any spelling ("", ".", "a/..",
 * its absolute path) is refused as `cannot <action> the workspace root`.
 */
export async function resolveEntry(view: WorkspaceView, path: string, action: string): Promise<string> {
  // The parent goes through the resolver, which refuses NUL bytes; the last segment does not, so check here.
  if (path.includes('\0')) throw new WorkspaceError('bad-request', 'path contains a NUL byte');
  const slashed = path.replace(/\\/g, '/');
  const lexical = slashed.startsWith('/') ? normalize(slashed) : join(view.root, slashed);
  if (lexical === view.root) throw new WorkspaceError('bad-request', `cannot ${action} the workspace root`);
  // Below the root, so there is a last segment; the resolver decides where its parent really is.
  const entry = join(await view.resolve(dirname(lexical)), basename(lexical));
  // "x/" names a folder: a file or a link there is not what the client meant (and `rm -r link/` is famous
  // for emptying the link's target).
  if (slashed.endsWith('/') && slashed !== '/') await requireFolderIfPresent(view, entry, path);
  return entry;
}

async function requireFolderIfPresent(view: WorkspaceView, entry: string, path: string): Promise<void> {
  try {
    if ((await view.fs.lstat(entry)).type === 'dir') return;
  } catch (error) {
    if (isFsError(error, 'not-found')) return;
    throw error;
  }
  throw new WorkspaceError('bad-request', `not a folder: ${path}`, { path });
}
