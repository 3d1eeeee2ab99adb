import { z } from 'zod';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { parseQuery } from '../../runtime/validation.ts';

// The call takes nothing; unknown parameters are ignored, as by every Intentic call.
export const setupQuery = z.object({});

/**
 * `GET /workspace/setup` (Intentic, docs/intentic-projects.md#setup) → `{projects: [{dir, ecosystem, manager, command,
 * evidence, state, missing?}]}`: the project model's projects (core/projects), each with its state — `installing`
 * while the job engine has its install queued or running, else what install-state.ts reads off the tree. Only
 * reports: installs start through `POST /workspace/setup/install`.
 */
export async function workspaceSetup(request: Request, ctx: WorkspaceContext): Promise<Response> {
  parseQuery(request, setupQuery);
  const model = ctx.projects;
  if (!model) throw new WorkspaceError('not-implemented', 'the project model is not available on this runtime');
  const projects = await Promise.all(
    (await model.projects()).map(async (project) => {
      const { dir, ecosystem, manager, command, evidence } = project;
      if (ctx.jobs?.isInstalling(dir)) return { dir, ecosystem, manager, command, evidence, state: 'installing' as const };
      const { state, missing } = await model.installState(project);
      return { dir, ecosystem, manager, command, evidence, state, ...(missing === undefined ? {} : { missing }) };
    }),
  );
  return jsonResponse({ projects });
}
