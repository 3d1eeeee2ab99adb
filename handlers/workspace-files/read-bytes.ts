import { encodeBase64 } from '../../core/text/base64.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { queryInteger } from '../../runtime/query-integer.ts';
import { parseQuery } from '../../runtime/validation.ts';
import { failingFor, fileStatBody, locateEntry, pathQuery, requireRegularFile } from './gates.ts';

/** The query schema for a window cap (built once per cap: the limits are an app's, fixed at creation). */
const readBytesQueries = new Map<number, ReturnType<typeof buildReadBytesQuery>>();

/**
 * `length` is at least 1 (an empty window reads nothing and could not say where the file ends), and the
 * window's end, `offset + length` (the default length counts), must be a safe integer: past 2^53 - 1 the
 * arithmetic of positions is no longer exact. Both are "not an integer in range", a bad request
 * (docs/workspace-files.md#read-bytes); a length over the cap is still `too-large`, after the gates.
 */
function buildReadBytesQuery(maxBytes: number) {
  return pathQuery
    .extend({
      offset: queryInteger(0).optional(),
      length: queryInteger(1).optional(),
    })
    .superRefine(({ offset = 0, length }, context) => {
      if (offset + (length ?? maxBytes) <= Number.MAX_SAFE_INTEGER) return;
      const path = [length === undefined ? 'offset' : 'length'];
      context.addIssue({ code: 'custom', path, message: 'offset + length must be at most 2^53 - 1' });
    });
}

export function readBytesQuery(maxBytes: number) {
  let schema = readBytesQueries.get(maxBytes);
  if (!schema) readBytesQueries.set(maxBytes, (schema = buildReadBytesQuery(maxBytes)));
  return schema;
}

/**
 * `GET /workspace-files/read-bytes?path=[&offset=][&length=][&agent=]` — raw bytes as base64: `offset` the
 * 0-based first byte (default 0), `length` the most bytes, at least 1 (default maxBytes; a longer window fails
 * `too-large` rather than arriving shortened). Nothing is decoded or refused as binary. `eof = offset + data.length >= size`.
 */
export async function workspaceFilesReadBytes(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const maxBytes = ctx.limits.pageMaxBytes;
  const { path, agent, offset = 0, length = maxBytes } = parseQuery(request, readBytesQuery(maxBytes));
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
