import { z } from 'zod';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../runtime/errors/workspace-error.ts';
import { contentTypeFor } from '../../runtime/http/content-type.ts';
import { serveContent } from '../../runtime/http/serve-content.ts';
import { SNIFF_LEN } from '../../runtime/http/sniff.ts';
import { parseQuery } from '../../runtime/validation.ts';

const utf8 = new TextEncoder();

const Query = z.object({ path: z.string({ error: 'missing path' }).min(1, 'missing path') });

/**
 * `GET|HEAD /api/raw?path=` — a file's bytes as-is, with the semantics of Go's `http.ServeContent`
 * (validators, preconditions, byte ranges) and seed 000's content-type order: pinned images, the mime
 * table, then sniffing. No size cap and no text requirement; the body is streamed.
 */
export async function rawFile(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { path } = parseQuery(request, Query);
  const file = await ctx.resolve(path);
  const stat = await ctx.fs.stat(file);
  if (stat.type === 'dir') throw new WorkspaceError('bad-request', 'path is a directory');
  if (stat.type !== 'file') throw new WorkspaceError('bad-request', 'not a regular file');

  return serveContent(request, {
    size: stat.size,
    modtime: stat.mtimeMs,
    etag: entityTag(stat.version),
    contentType: () => contentTypeFor(file, () => ctx.fs.read(file, { offset: 0, length: SNIFF_LEN })),
    open: (range) => ctx.fs.readStream(file, range),
    headers: { 'x-content-type-options': 'nosniff' },
    renderError: (status, message) => jsonResponse({ error: message }, status),
  });
}

/**
 * A strong ETag from the file's version (which changes whenever the content does). Anything but printable
 * ASCII without `"` (RFC 7232 etagc, kept to ASCII for header safety) is percent-escaped, `%` included, so
 * any backend's version string gives a valid tag and distinct versions give distinct tags.
 */
function entityTag(version: string): string {
  const safe = version.replace(/[^\x21\x23-\x24\x26-\x7e]/gu, (char) =>
    Array.from(utf8.encode(char), (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
  return `"${safe}"`;
}
