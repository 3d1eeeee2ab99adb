import { z } from 'zod';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../runtime/errors/workspace-error.ts';
import { parseJsonBody, parseQuery } from '../../runtime/validation.ts';

const Query = z.object({ path: z.string({ error: 'missing path' }).min(1, 'missing path') });
const Body = z.object({ content: z.string({ error: 'content must be a string' }) });

/**
 * `PUT /api/file?path=` with `{ "content": "…" }` — creates parent folders and writes atomically.
 * Everything is validated before the disk is touched, so a bad request leaves no trace.
 */
export async function writeFile(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { path } = parseQuery(request, Query);
  const { content } = await parseJsonBody(request, Body, ctx.limits.maxBodyBytes);
  if (/[/\\]$/.test(path)) throw new WorkspaceError('bad-request', 'path is a directory');
  const file = await ctx.resolve(path);
  try {
    await ctx.fs.write(file, content, { mkdirs: true });
  } catch (error) {
    if (isFsError(error, 'is-directory')) throw new WorkspaceError('bad-request', 'path is a directory');
    if (isFsError(error, 'not-directory')) throw new WorkspaceError('bad-request', 'a parent of path is not a directory');
    throw error;
  }
  return jsonResponse({ path: file, status: 'saved' });
}
