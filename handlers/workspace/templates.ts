import { z } from 'zod';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { parseQuery } from '../../runtime/validation.ts';

// The call takes nothing; unknown parameters are ignored, as by every Intentic call.
export const templatesQuery = z.object({});

/**
 * `GET /workspace/templates` (docs/intentic-projects.md#templates) → `{templates: [{key, label, description}]}` in key order, from
 * the source configured in `.intentic/config/templates.json` (read on every call), else the shipped templates
 * (core/projects/template-source.ts). An unusable source is PRECONDITION_FAILED naming the problem.
 */
export async function workspaceTemplates(request: Request, ctx: WorkspaceContext): Promise<Response> {
  parseQuery(request, templatesQuery);
  if (ctx.templateSources === undefined) throw new WorkspaceError('not-implemented', 'templates are not available on this runtime');
  const source = await ctx.templateSources.read();
  return jsonResponse({ templates: source.templates.map(({ key, label, description }) => ({ key, label, description })) });
}
