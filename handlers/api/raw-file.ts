import { z } from 'zod';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { contentTypeFor } from '../../runtime/http/content-type.ts';
import { entityTag } from '../../runtime/http/entity-tag.ts';
import { serveContent } from '../../runtime/http/serve-content.ts';
import { SERVED_BYTES_HEADERS } from '../../runtime/http/served-bytes-headers.ts';
import { SNIFF_LEN } from '../../runtime/http/sniff.ts';
import { parseQuery } from '../../runtime/validation.ts';

export const rawFileQuery = z.object({ path: z.string({ error: 'missing path' }).min(1, 'missing path') });

/**
 * `GET|HEAD /api/raw?path=` — a file's bytes as-is, with the semantics of Go's `http.ServeContent`
 * (validators, preconditions, byte ranges) and ori's content-type order: pinned images, the mime
 * table, then sniffing. No size cap and no text requirement; the body is streamed.
 */
export async function rawFile(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { path } = parseQuery(request, rawFileQuery);
  const file = await ctx.resolve(path);
  const stat = await ctx.fs.stat(file);
  if (stat.type === 'dir') throw new WorkspaceError('bad-request', 'path is a directory');
  if (stat.type !== 'file') throw new WorkspaceError('bad-request', 'not a regular file');

  return serveContent(request, {
    size: stat.size,
    modtime: stat.mtimeMs,
    etag: entityTag(stat.version),
    contentType: () => contentTypeFor(file, () => ctx.fs.read(file, { offset: 0, length: SNIFF_LEN })),
    open: (range, read) => ctx.fs.readStream(file, range, read),
    headers: SERVED_BYTES_HEADERS,
    renderError: (status, message) => jsonResponse({ error: message }, status),
  });
}
