import { z } from 'zod';
import { packageGraph } from '../../core/projects/package-graph.ts';
import { resolveRepoScope } from '../../core/projects/repo-scope.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { parsePathParams, parseQuery } from '../../runtime/validation.ts';

export const graphQuery = z.object({});
export const graphParams = z.object({ repo: z.string().min(1, 'the repo is empty') });
const GRAPH_PATH = /\/workspace\/repos\/([^/]+)\/graph$/;

/**
 * `GET /workspace/repos/{repo}/graph` (Intentic, docs/intentic-projects.md#graph) → `{packages: [{name, dir, group}], edges:
 * [{from, to, type}]}`: the repo's workspace members (or its one package) and the dependency edges between them
 * (core/projects/package-graph.ts). `repo` as every project call reads it (core/projects/repo-scope.ts): one
 * percent-encoded segment (oRPC sends a nested id's `/` as `%2F`).
 */
export async function workspaceGraph(request: Request, ctx: WorkspaceContext): Promise<Response> {
  parseQuery(request, graphQuery);
  const model = ctx.projects;
  if (!model) throw new WorkspaceError('not-implemented', 'the project model is not available on this runtime');
  const { repo } = parsePathParams({ repo: repoSegment(request) }, graphParams);
  const scope = await resolveRepoScope(ctx.fs, ctx.root, repo);
  return jsonResponse(packageGraph(await model.members(scope.dir)));
}

function repoSegment(request: Request): string {
  const path = new URL(request.url).pathname;
  const encoded = GRAPH_PATH.exec(path)?.[1];
  if (encoded === undefined) throw new WorkspaceError('not-found', `no such call: ${path}`);
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw new WorkspaceError('bad-request', 'invalid path: the repo is not valid percent-encoding');
  }
}
