import { z } from 'zod';
import { classifyTree } from '../../core/classify/classify-tree.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { parseQuery } from '../../runtime/validation.ts';

// The call takes nothing; unknown parameters are ignored, as by every Intentic call.
export const classifyQuery = z.object({});

/**
 * `GET /workspace/classify` (Intentic, docs/intentic-projects.md#classify) → `{classifications}`: every file of the workspace by magic bytes,
 * extension, then a text check, and project folders as single `repositories` entries (core/classify has the rules
 * of docs/intentic-projects.md#classify). Read-only; the agents' copies are not part of it.
 */
export async function workspaceClassify(request: Request, ctx: WorkspaceContext): Promise<Response> {
  parseQuery(request, classifyQuery);
  await ctx.agents.view(undefined); // resolves the agents folder to its real path
  const classifications = await classifyTree(ctx.fs, ctx.root, { exclude: [ctx.agents.dir] });
  return jsonResponse({ classifications });
}
