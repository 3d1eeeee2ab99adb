import { z } from 'zod';
import { discoverRepos } from '../../core/git/discover-repos.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { parseQuery } from '../../runtime/validation.ts';

// The call takes nothing; unknown parameters are ignored, as by every Intentic call.
export const reposQuery = z.object({});

/**
 * `GET /workspace/repos` (Intentic, docs/intentic.md#repos) → `{repos}`: every git repository's id in the workspace, sorted
 * (core/git/discover-repos.ts has the rules: docs/intentic.md#repos). The agents' copies are not part of it.
 */
export async function workspaceRepos(request: Request, ctx: WorkspaceContext): Promise<Response> {
  parseQuery(request, reposQuery);
  await ctx.agents.view(undefined); // resolves the agents folder to its real path
  const repos = await discoverRepos(ctx.fs, ctx.root, { exclude: [ctx.agents.dir] });
  return jsonResponse({ repos });
}
