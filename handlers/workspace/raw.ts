import { z } from 'zod';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { parseQuery } from '../../runtime/validation.ts';
import { serveFileBytes } from './serve-file-bytes.ts';
import { resolveServedFile, servedAgent, servedPath } from './served-file.ts';

export const rawQuery = z.object({ path: servedPath, agent: servedAgent });

/**
 * `GET /workspace/raw?path=[&agent=]` (Intentic's byte route for previews): the file's bytes, typed by
 * extension only and never sniffed (runtime/http/media-type.ts), with `nosniff` and the version as `ETag`.
 * Larger files than `maxRawBytes` (25 MiB) are 413 from the stat, before a byte is read: big media streams
 * from `/workspace/media`. Served through the one ServeContent port `/api/raw` uses, so validators and a
 * Range header behave as there.
 */
export async function workspaceRaw(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { path, agent } = parseQuery(request, rawQuery);
  const served = await resolveServedFile(ctx, path, agent);
  const { stat } = served;
  const limit = ctx.limits.maxRawBytes;
  if (stat.size > limit) {
    throw new WorkspaceError('too-large', `file is ${stat.size} bytes, over the ${limit}-byte limit of /workspace/raw`, {
      size: stat.size,
      limit,
    });
  }
  return serveFileBytes(request, served);
}
