import { z } from 'zod';
import { removeEntry } from '../../core/tree-ops/remove-entry.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { parseJsonBody } from '../../runtime/validation.ts';
import { agentField, mutationScope, pathField } from '../shared/mutation-scope.ts';

export const deleteEntryBody = z.object({ agent: agentField, path: pathField('path') });

/**
 * `DELETE /workspace/entry {path[, agent]}` (the path in the body) → `{ok: true}` (docs/intentic.md#mutations): one entry and
 * everything under it; a symlink is removed itself, never its target. The root and the agents folder are
 * refused.
 */
export async function workspaceDeleteEntry(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { agent, path } = await parseJsonBody(request, deleteEntryBody, ctx.limits.maxBodyBytes);
  const scope = await mutationScope(ctx, agent);
  await removeEntry(scope.view, await scope.entry(path, 'delete', 'not-inside-or-containing'));
  return jsonResponse({ ok: true });
}
