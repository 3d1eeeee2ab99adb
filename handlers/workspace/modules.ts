import { z } from 'zod';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { parseQuery } from '../../runtime/validation.ts';

export const modulesQuery = z.object({});

/**
 * `GET /workspace/modules` (Intentic, docs/intentic-projects.md#modules) → `{repos: [{repo, modules: [{dir, name}]}]}`: `root`
 * (the workspace without its repos) first, then each repo by id, with the named packages in it
 * (core/projects/find-modules.ts). The agents' copies are not part of it.
 */
export async function workspaceModules(request: Request, ctx: WorkspaceContext): Promise<Response> {
  parseQuery(request, modulesQuery);
  const model = ctx.projects;
  if (!model) throw new WorkspaceError('not-implemented', 'the project model is not available on this runtime');
  return jsonResponse({ repos: await model.modules() });
}
