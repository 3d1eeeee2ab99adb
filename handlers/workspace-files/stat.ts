import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { parseQuery } from '../../runtime/validation.ts';
import { failingFor, fileStatBody, locateEntry, pathQuery, requireRegularFile } from './gates.ts';

/** `GET /workspace-files/stat?path=[&agent=]` — a regular file's real path, version and size, no content. */
export async function workspaceFilesStat(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { path, agent } = parseQuery(request, pathQuery);
  return failingFor(path, async () => {
    const entry = await locateEntry(ctx, path, agent);
    requireRegularFile(entry.stat);
    return jsonResponse(fileStatBody(entry));
  });
}
