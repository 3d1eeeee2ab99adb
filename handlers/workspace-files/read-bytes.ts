import { encodeBase64 } from '../../core/text/base64.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { queryInteger } from '../../runtime/query-integer.ts';
import { parseQuery } from '../../runtime/validation.ts';
import { failingFor, fileStatBody, locateEntry, pathQuery, requireRegularFile } from './gates.ts';

const readBytesQuery = pathQuery.extend({
  offset: queryInteger(0).optional(),
  length: queryInteger(0).optional(),
});

/**
 * `GET /workspace-files/read-bytes?path=[&offset=][&length=][&agent=]` — raw bytes as base64: `offset` the
 * 0-based first byte (default 0), `length` the most bytes (default maxBytes; a longer window fails `too-large`
 * rather than arriving shortened). Nothing is decoded or refused as binary. `eof = offset + data.length >= size`.
 */
export async function workspaceFilesReadBytes(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const maxBytes = ctx.limits.pageMaxBytes;
  const { path, agent, offset = 0, length = maxBytes } = parseQuery(request, readBytesQuery);
  return failingFor(path, async () => {
    const entry = await locateEntry(ctx, path, agent);
    requireRegularFile(entry.stat);
    if (length > maxBytes) {
      throw new WorkspaceError('too-large', `window is larger than ${maxBytes} bytes`, { limit: maxBytes });
    }
    const data = await entry.view.fs.read(entry.absolutePath, { offset, length });
    return jsonResponse({
      ...fileStatBody(entry),
      offset,
      data: encodeBase64(data),
      eof: offset + data.byteLength >= entry.stat.size,
    });
  });
}
