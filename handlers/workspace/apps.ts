import { resolveRepoScope } from '../../core/projects/repo-scope.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { repoPathParams } from './job-paths.ts';

/**
 * `GET /workspace/repos/{repo}/apps` → `{apps: [{app, running, healthy, kind?, previewUrl?}]}` and
 * `POST …/apps/{app}/start|stop` → `{ok: true}` (docs/intentic-projects.md#start-and-stop; core/jobs/dev-servers.ts). `repo` as every
 * project call reads it (core/projects/repo-scope.ts). Node only: NOT_IMPLEMENTED where no terminals run.
 */
export async function workspaceApps(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { repo } = repoPathParams(request);
  const scope = await resolveRepoScope(ctx.fs, ctx.root, repo);
  const jobs = requireJobs(ctx);
  return jsonResponse({ apps: await jobs.apps(scope, new URL(request.url).hostname) });
}

/** Answers once the dev terminal runs (or, without node_modules, once the install is queued before it). */
export async function workspaceStartApp(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { repo, app } = repoPathParams(request);
  const scope = await resolveRepoScope(ctx.fs, ctx.root, repo);
  await requireJobs(ctx).startApp(scope, app!);
  return jsonResponse({ ok: true });
}

/** Answers once the app's whole process tree is gone (its port is free); also when nothing ran. */
export async function workspaceStopApp(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { repo, app } = repoPathParams(request);
  const scope = await resolveRepoScope(ctx.fs, ctx.root, repo);
  await requireJobs(ctx).stopApp(scope, app!);
  return jsonResponse({ ok: true });
}

function requireJobs(ctx: WorkspaceContext): NonNullable<WorkspaceContext['jobs']> {
  if (ctx.jobs === undefined) throw new WorkspaceError('not-implemented', 'dev servers are not available on this runtime');
  return ctx.jobs;
}
