import { readLinePage } from '../../core/text/line-page.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { queryInteger } from '../../runtime/query-integer.ts';
import { parseQuery } from '../../runtime/validation.ts';
import { failingFor, fileStatBody, locateEntry, pathQuery, requireRegularFile } from './gates.ts';

/** The query schema for a page cap (built once per cap: the limits are an app's, fixed at creation). */
const readQueries = new Map<number, ReturnType<typeof buildReadQuery>>();

function buildReadQuery(maxLines: number) {
  return pathQuery.extend({
    offset: queryInteger(1).optional(),
    limit: queryInteger(1)
      .refine((n) => n <= maxLines, `must be at most ${maxLines}`)
      .optional(),
  });
}

export function readQuery(maxLines: number) {
  let schema = readQueries.get(maxLines);
  if (!schema) readQueries.set(maxLines, (schema = buildReadQuery(maxLines)));
  return schema;
}

/**
 * `GET /workspace-files/read?path=[&offset=][&limit=][&agent=]` — one page of lines (core/text/line-page.ts):
 * `offset` is the 1-based first line (default 1), `limit` the most lines (default and largest: maxLines).
 * The version and size are the lstat's, taken before the stream (docs/workspace-files.md#read).
 */
export async function workspaceFilesRead(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const maxLines = ctx.limits.pageMaxLines;
  const { path, agent, offset = 1, limit = maxLines } = parseQuery(request, readQuery(maxLines));
  return failingFor(path, async () => {
    const entry = await locateEntry(ctx, path, agent);
    requireRegularFile(entry.stat);
    const page = await readLinePage(entry.view.fs, entry.absolutePath, {
      offset,
      limit,
      maxBytes: ctx.limits.pageMaxBytes,
    });
    return jsonResponse({ ...fileStatBody(entry), offset, text: page.text, lines: page.lines, eof: page.eof });
  });
}
