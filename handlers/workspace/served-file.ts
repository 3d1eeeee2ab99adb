/**
 * The step Intentic's byte routes and `media-ticket` share: a client path, through the shared tree or an
 * agent's copy, to one regular file and its stat. Order of refusals: a malformed or unknown agent (by
 * `ctx.view`), a path that escapes the workspace, a missing file, then anything that is not a regular file.
 */
import { z } from 'zod';
import type { FileStat } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import type { WorkspaceView } from '../../core/agents/workspace-view.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';

export const servedPath = z.string({ error: 'missing path' }).min(1, 'missing path');
/** The agent id's own rules are checked by `ctx.view` (BAD_REQUEST malformed, NOT_FOUND unknown). */
export const servedAgent = z.string({ error: 'agent must be a string' }).optional();

export interface ServedFile {
  readonly view: WorkspaceView;
  /** The absolute real path the view resolved. */
  readonly file: string;
  readonly stat: FileStat;
}

export async function resolveServedFile(
  ctx: WorkspaceContext,
  path: string,
  agent: string | undefined,
): Promise<ServedFile> {
  const view = await ctx.view(agent);
  const file = await view.resolve(path);
  let stat: FileStat;
  try {
    stat = await view.fs.stat(file);
  } catch (error) {
    // "a.txt/b" (a parent that is a file) is as missing as "nope.txt".
    if (isFsError(error, 'not-found') || isFsError(error, 'not-directory')) {
      throw new WorkspaceError('not-found', `no such file: ${path}`, { path });
    }
    throw error;
  }
  if (stat.type === 'dir') throw new WorkspaceError('bad-request', `path is a directory: ${path}`, { path });
  if (stat.type !== 'file') throw new WorkspaceError('bad-request', `not a regular file: ${path}`, { path });
  return { view, file, stat };
}
