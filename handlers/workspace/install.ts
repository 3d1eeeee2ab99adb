import { z } from 'zod';
import { checkDirs } from '../../core/jobs/job-dirs.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { parseJsonBody } from '../../runtime/validation.ts';

export const installBody = z.object({
  dirs: z
    .array(z.string({ error: 'each dir must be a string' }).max(500, 'a dir is at most 500 characters'), { error: 'missing dirs' })
    .min(1, 'at least one dir')
    .max(50, 'at most 50 dirs'),
});

/**
 * `POST /workspace/setup/install {dirs}` → `{queued}` (docs/intentic-projects.md#install): every dir checked first (a `..`
 * segment, absolute, `\`, NUL, a real path outside the root → BAD_REQUEST naming it); then the dirs that are
 * `needs-setup` or `stale` projects are queued in setup's order and the call answers at once (core/jobs/
 * install-queue.ts runs them in their install terminals). Node only: NOT_IMPLEMENTED where no terminals run.
 */
export async function workspaceInstall(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { dirs } = await parseJsonBody(request, installBody, ctx.limits.maxBodyBytes);
  const checked = await checkDirs(ctx.fs, ctx.root, dirs, 'the workspace');
  if (ctx.jobs === undefined) throw new WorkspaceError('not-implemented', 'installs are not available on this runtime');
  return jsonResponse({ queued: await ctx.jobs.install(checked.map((dir) => dir.relative)) });
}
