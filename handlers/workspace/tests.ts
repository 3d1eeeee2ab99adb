import { z } from 'zod';
import { resolveRepoScope } from '../../core/projects/repo-scope.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { parseJsonBody } from '../../runtime/validation.ts';
import { repoPathParams } from './job-paths.ts';

export const testsBody = z.object({
  session: z.string({ error: 'missing session' }),
  dirs: z.array(z.string({ error: 'each dir must be a string' }), { error: 'missing dirs' }).min(1, 'at least one dir'),
});

/**
 * `POST /workspace/repos/{repo}/tests {session, dirs}` → `{ok: true}` (docs/intentic-projects.md#tests): the session name
 * (`^[a-z0-9][a-z0-9_-]*$`, not `install` or `add_apps`) and every dir (`""` or a folder in the repo by real path)
 * are checked before anything starts; then it answers at once and the run goes on in `panel-<r>--<session>`
 * (core/jobs/test-runs.ts). Node only: NOT_IMPLEMENTED where no terminals run.
 */
export async function workspaceRunTests(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { repo } = repoPathParams(request);
  const body = await parseJsonBody(request, testsBody, ctx.limits.maxBodyBytes);
  const scope = await resolveRepoScope(ctx.fs, ctx.root, repo);
  if (ctx.jobs === undefined) throw new WorkspaceError('not-implemented', 'test runs are not available on this runtime');
  await ctx.jobs.runTests(scope, body.session, body.dirs);
  return jsonResponse({ ok: true });
}
