import { z } from 'zod';
import type { FileStat } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { writeIfStill } from '../../core/versions/write-if-still.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { entityTag } from '../../runtime/http/entity-tag.ts';
import { failedWritePrecondition, hasWritePreconditions } from '../../runtime/http/write-preconditions.ts';
import { parseJsonBody, parseQuery } from '../../runtime/validation.ts';

export const writeFileQuery = z.object({ path: z.string({ error: 'missing path' }).min(1, 'missing path') });
export const writeFileBody = z.object({ content: z.string({ error: 'content must be a string' }) });

/**
 * When the file changes between the precondition check and the commit, the check is taken again on the new
 * state; a file rewritten this often in a row under one request gets a 412.
 */
const PRECONDITION_ATTEMPTS = 8;

/**
 * `PUT /api/file?path=` with `{ "content": "…" }` — creates parent folders and writes atomically; the new
 * version comes back as `ETag`. `If-Match` (`*`: the file must exist) and `If-None-Match: *` (create only)
 * make it conditional: 412 `{error}` when they fail, the check and the write one critical section.
 * Everything is validated before the disk is touched, so a bad request leaves no trace.
 */
export async function writeFile(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { path } = parseQuery(request, writeFileQuery);
  const { content } = await parseJsonBody(request, writeFileBody, ctx.limits.maxBodyBytes);
  if (/[/\\]$/.test(path)) throw new WorkspaceError('bad-request', 'path is a directory');
  const file = await ctx.resolve(path);
  let written: FileStat;
  try {
    written = hasWritePreconditions(request)
      ? await writeIfStill(ctx.fs, file, {
          check: (current) => {
            if (current?.type === 'dir') throw new WorkspaceError('bad-request', 'path is a directory');
            const representation = current && { etag: entityTag(current.version), modtime: current.mtimeMs };
            return failedWritePrecondition(request, representation);
          },
          commit: (pin) => ctx.fs.write(file, content, { mkdirs: true, ...pin }),
          attempts: PRECONDITION_ATTEMPTS,
          refuse: (reason) => new WorkspaceError('precondition-failed', reason),
        })
      : await ctx.fs.write(file, content, { mkdirs: true });
  } catch (error) {
    if (isFsError(error, 'is-directory')) throw new WorkspaceError('bad-request', 'path is a directory');
    if (isFsError(error, 'not-directory')) throw new WorkspaceError('bad-request', 'a parent of path is not a directory');
    throw error;
  }
  return jsonResponse({ path: file, status: 'saved' }, 200, { etag: entityTag(written.version) });
}
