/**
 * What `write_file`, `upload_file` and `create_file` share: one whole file written atomically (the
 * FileSystem's temp file + rename), missing parent folders made, links on the way followed as for any write.
 * Escapes (`..`, absolute paths elsewhere, a link out of the root) and the agents folder are refused by the
 * scope before anything is touched (handlers/shared/mutation-scope.ts, shared with Intentic's mutations).
 */
import { isFsError } from '../../../../adapters/fs/fs-error.ts';
import type { WorkspaceContext } from '../../../../runtime/context.ts';
import { WorkspaceError } from '../../../../core/errors/workspace-error.ts';
import { mutationScope } from '../../../shared/mutation-scope.ts';
import { RpcError } from '../../command.ts';
import { FILE_ALREADY_EXISTS } from './protocol-texts.ts';

export interface WholeFileWrite {
  /** Fail with `File already exists` when anything is at the path (a folder, a dangling link) already. */
  exclusive?: boolean;
}

export async function writeWholeFile(
  ctx: WorkspaceContext,
  path: string,
  data: Uint8Array | string,
  { exclusive = false }: WholeFileWrite = {},
): Promise<void> {
  // "a/" names a folder: writing a file there would create "a", not what the client meant.
  if (/[/\\]$/.test(path)) throw new WorkspaceError('bad-request', `Not a file path (it ends with a slash): ${path}`, { path });
  const scope = await mutationScope(ctx, undefined);
  // An exclusive write names the entry itself: a link there (dangling or not) is something at the path, and
  // the backends' exclusive commit refuses it, rather than the write landing on the link's target.
  const file = exclusive ? await scope.entry(path, 'create a file at', 'not-inside') : await scope.folder(path);
  try {
    await scope.view.fs.write(file, data, { mkdirs: true, exclusive });
  } catch (error) {
    if (isFsError(error, 'exists')) throw new RpcError(FILE_ALREADY_EXISTS);
    if (isFsError(error, 'is-directory')) throw new WorkspaceError('bad-request', `Is a folder, not a file: ${path}`, { path });
    if (isFsError(error, 'not-directory')) {
      throw new WorkspaceError('bad-request', `A parent of ${path} is a file, not a folder`, { path });
    }
    throw error;
  }
}
