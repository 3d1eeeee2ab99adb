import { z } from 'zod';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { parseJsonBody } from '../../runtime/validation.ts';

// The call takes nothing; a body, if any, is ignored beyond being JSON.
export const syncBody = z.object({}).optional();

/**
 * `POST /workspace/sync` (Intentic, docs/intentic.md#sync) → `{repos}`: every repo fetched and fast-forwarded where that is
 * safe, one entry each (core/git/sync-repos.ts). Node only: where git cannot run the call is NOT_IMPLEMENTED.
 */
export async function workspaceSync(request: Request, ctx: WorkspaceContext): Promise<Response> {
  if (request.body !== null && request.headers.get('content-length') !== '0') await parseJsonBody(request, syncBody, ctx.limits.maxBodyBytes);
  if (ctx.repoSyncer === undefined) throw new WorkspaceError('not-implemented', 'git is not available on this runtime');
  await ctx.agents.view(undefined); // resolves the agents folder to its real path
  return jsonResponse({ repos: await ctx.repoSyncer.syncAll({ exclude: [ctx.agents.dir] }) });
}
