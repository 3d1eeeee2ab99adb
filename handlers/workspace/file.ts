import { z } from 'zod';
import type { FileStat } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { readTextWindow } from '../../core/text/text-window.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { entityTag } from '../../runtime/http/entity-tag.ts';
import { queryInteger } from '../../runtime/query-integer.ts';
import { parseQuery } from '../../runtime/validation.ts';
import { agentField } from '../shared/agent-field.ts';

export const fileQuery = z.object({
  path: z.string({ error: 'missing path' }).min(1, 'missing path'),
  offset: queryInteger().optional(),
  limit: queryInteger(1).optional(),
  agent: agentField,
});

/**
 * `GET /workspace/file?path=[&offset=][&limit=][&agent=]` (Intentic, docs/intentic.md#file) — a window of a text file,
 * cut to whole lines and characters (core/text/text-window.ts), never the whole file: `limit` defaults to and
 * is clamped at maxFileWindowBytes. A missing file is 200 `{present: false, path}`. The file's version rides
 * along as a strong `ETag` (the one `/api/raw` sends), taken before the read: a save conditional on it can
 * fail needlessly if the file changed meanwhile, but can never overwrite a change the reader did not see.
 *
 * Decisions the documents leave open (each is BAD_REQUEST unless said): a folder; a FIFO or device; an
 * escaping path or a link out of the root (docs/intentic.md#file). A window that is not UTF-8, or holds a NUL
 * byte, is 415 UNSUPPORTED_MEDIA_TYPE, not lossily decoded: the editor saves what it shows, and replacement
 * characters would silently corrupt a binary or Latin-1 file on the first save (`/workspace/raw` serves bytes).
 */
export async function workspaceFile(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { path, offset, limit, agent } = parseQuery(request, fileQuery);
  const view = await ctx.view(agent);
  const file = await view.resolve(path);
  const stat = await statOrMissing(view.fs.stat(file));
  if (!stat) return jsonResponse({ present: false, path });
  if (stat.type === 'dir') throw new WorkspaceError('bad-request', 'path is a directory');
  if (stat.type !== 'file') throw new WorkspaceError('bad-request', 'not a regular file');

  const window = await readTextWindow(view.fs, file, stat.size, { offset, limit }, ctx.limits.maxFileWindowBytes);
  const body = {
    present: true,
    path,
    content: window.content,
    size: stat.size,
    offset: window.offset,
    bytes: window.bytes,
    shared: await view.isShared(file),
  };
  return jsonResponse(body, 200, { etag: entityTag(stat.version) });
}

/** A missing file, or one under a parent that is a file ("a.txt/b"), is not there: undefined. */
async function statOrMissing(stat: Promise<FileStat>): Promise<FileStat | undefined> {
  try {
    return await stat;
  } catch (error) {
    if (isFsError(error, 'not-found') || isFsError(error, 'not-directory')) return undefined;
    throw error;
  }
}
