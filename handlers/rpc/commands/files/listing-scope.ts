/**
 * Where `read_directory`, `list_files` and `search_in_files` look: the client's folder resolved with
 * containment (links on the way followed, escapes refused), the walk's place (the workspace root, and the
 * agents' copies, which are never listed or searched — asking for that folder itself is refused too).
 */
import { isFsError } from '../../../../adapters/fs/fs-error.ts';
import { refuseAgentsFolder } from '../../../../core/tree-ops/agents-folder-guard.ts';
import { treePlace, type TreePlace } from '../../../../core/tree/tree-place.ts';
import type { WorkspaceContext } from '../../../../runtime/context.ts';
import { WorkspaceError } from '../../../../core/errors/workspace-error.ts';
import { RpcError } from '../../command.ts';
import { PATH_DOES_NOT_EXIST } from './protocol-texts.ts';

export interface ListingScope {
  place: TreePlace;
  /** The folder (or, for the search, file) as an absolute real path. */
  top: string;
}

export async function listingScope(ctx: WorkspaceContext, path: string): Promise<ListingScope> {
  const view = await ctx.view(undefined);
  const top = await view.resolve(path);
  const place = await treePlace(view.fs, view.root, ctx.agents.dir);
  if (place.excluded !== undefined) refuseAgentsFolder(top, place.excluded, 'not-inside', path);
  return { place, top };
}

/** The walk's failure on the top folder itself, in the protocol's words. */
export function topFolderError(error: unknown, path: string): unknown {
  if (isFsError(error, 'not-found')) return new RpcError(PATH_DOES_NOT_EXIST);
  if (isFsError(error, 'not-directory')) return new WorkspaceError('not-directory', `Not a folder: ${path}`, { path });
  return error;
}
