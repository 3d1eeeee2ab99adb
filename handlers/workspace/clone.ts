import { z } from 'zod';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { parseJsonBody } from '../../runtime/validation.ts';

export const cloneBody = z.object({
  name: z.string({ error: 'missing name' }),
  cloneUrl: z.string({ error: 'missing cloneUrl' }),
  branch: z.string().optional(),
});

/**
 * `POST /workspace/repos {name, cloneUrl, branch?}` (Intentic, docs/intentic.md#clone) → `{name, path}`: clones a repository
 * into the root beside the others, with the machine's own credentials (core/git/clone-repo.ts has the checks and
 * their order from docs/intentic.md#clone). Node only: where git cannot run the call is NOT_IMPLEMENTED.
 */
export async function workspaceClone(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const body = await parseJsonBody(request, cloneBody, ctx.limits.maxBodyBytes);
  if (ctx.repoCloner === undefined) throw new WorkspaceError('not-implemented', 'git is not available on this runtime');
  const cloned = await ctx.repoCloner.clone(body);
  await ctx.gitState?.refresh(); // its commits are in the change feed from the answer on
  return jsonResponse(cloned);
}
