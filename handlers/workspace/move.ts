import { z } from 'zod';
import { moveEntry } from '../../core/tree-ops/move-entry.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { parseJsonBody } from '../../runtime/validation.ts';
import { agentField, mutationScope, pathField } from '../shared/mutation-scope.ts';

export const moveBody = z.object({ agent: agentField, from: pathField('from'), to: pathField('to') });

/**
 * `POST /workspace/move {from, to[, agent]}` → `{ok: true}` (docs/intentic.md#mutations): a move or rename of the entry itself.
 * An existing target is CONFLICT (never overwritten); missing folders above `to` are made.
 */
export async function workspaceMove(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { agent, from, to } = await parseJsonBody(request, moveBody, ctx.limits.maxBodyBytes);
  const scope = await mutationScope(ctx, agent);
  const source = await scope.entry(from, 'move', 'not-inside-or-containing');
  const target = await scope.entry(to, 'move onto', 'not-inside');
  await moveEntry(scope.view, source, target);
  return jsonResponse({ ok: true });
}
