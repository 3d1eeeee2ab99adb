import { z } from 'zod';
import { APP_NAME } from '../../core/jobs/add-apps.ts';
import { resolveRepoScope } from '../../core/projects/repo-scope.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { parseJsonBody } from '../../runtime/validation.ts';
import { repoPathParams } from './job-paths.ts';

/** More than this in one request is no UI's form: a cap so one request cannot queue unbounded copies. */
const MAX_APPS = 50;

export const addAppsBody = z.object({
  apps: z
    .array(
      z.object({
        template: z.string({ error: 'missing template' }).min(1, { error: 'template is empty' }),
        name: z.string({ error: 'missing name' }).regex(APP_NAME, {
          error: (issue) => `invalid app name ${JSON.stringify(issue.input)}: use lower-case letters, digits and "-", starting with a letter`,
        }),
      }),
      { error: 'missing apps' },
    )
    .min(1, { error: 'apps needs at least one app' })
    .max(MAX_APPS, { error: `at most ${MAX_APPS} apps at once` }),
});

/**
 * `POST /workspace/repos/{repo}/apps {apps: [{template, name}]}` (docs/intentic-projects.md#add-apps) → `{ok: true}` once every
 * check passed (core/jobs/add-apps.ts has them and their order); the job then runs in the named terminal
 * `panel-<repo>--add_apps`. The body is checked before the repo, so a malformed request names its own fault.
 */
export async function workspaceAddApps(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { repo } = repoPathParams(request);
  const body = await parseJsonBody(request, addAppsBody, ctx.limits.maxBodyBytes);
  const scope = await resolveRepoScope(ctx.fs, ctx.root, repo);
  if (ctx.appAdder === undefined) throw new WorkspaceError('not-implemented', 'templates are not available on this runtime');
  await ctx.appAdder.add(scope, body.apps, ctx.projects);
  return jsonResponse({ ok: true });
}
