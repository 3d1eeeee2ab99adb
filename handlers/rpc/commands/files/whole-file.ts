/**
 * What `read_file`, `read_file_base64` and `download_file` share: the bytes of one whole file, under
 * `limits.rpcMaxFileBytes`. The size is checked on a stat before anything is read, so asking for a 10 GiB
 * file costs one stat, and the read stops one byte past the cap, so a file that grew meanwhile is refused
 * too without ever holding more than cap + 1 bytes.
 */
import type { FileStat } from '../../../../adapters/fs/file-system.ts';
import { isFsError } from '../../../../adapters/fs/fs-error.ts';
import type { WorkspaceContext } from '../../../../runtime/context.ts';
import { WorkspaceError } from '../../../../core/errors/workspace-error.ts';
import { RpcError } from '../../command.ts';
import { PATH_DOES_NOT_EXIST } from './protocol-texts.ts';

export async function readWholeFile(ctx: WorkspaceContext, path: string, command: string): Promise<Uint8Array> {
  const view = await ctx.view(undefined);
  const file = await view.resolve(path);
  const stat = await existing(() => view.fs.stat(file));
  if (stat.type === 'dir') throw new WorkspaceError('bad-request', `Is a folder, not a file: ${path}`, { path });
  if (stat.type !== 'file') throw new WorkspaceError('bad-request', `Not a regular file: ${path}`, { path });
  const cap = ctx.limits.rpcMaxFileBytes;
  if (stat.size > cap) throw tooLarge(path, `is ${stat.size} bytes`, cap, command);
  const bytes = await existing(() => view.fs.read(file, { offset: 0, length: cap + 1 }));
  if (bytes.byteLength > cap) throw tooLarge(path, `grew past ${cap} bytes while being read`, cap, command);
  return bytes;
}

/** Runs a lookup of the client's path; missing (or below a file) is the protocol's `Path does not exist`. */
async function existing<T extends FileStat | Uint8Array>(lookup: () => Promise<T>): Promise<T> {
  try {
    return await lookup();
  } catch (error) {
    if (isFsError(error, 'not-found') || isFsError(error, 'not-directory')) throw new RpcError(PATH_DOES_NOT_EXIST);
    throw error;
  }
}

function tooLarge(path: string, what: string, cap: number, command: string): WorkspaceError {
  return new WorkspaceError('too-large', `File too large: ${path} ${what}; ${command} answers files up to ${cap} bytes`, {
    path,
    limit: cap,
  });
}
