import { z } from 'zod';
import { copyEntry } from '../../core/tree-ops/copy-entry.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { parseJsonBody } from '../../runtime/validation.ts';
import { agentField, mutationScope, pathField } from '../shared/mutation-scope.ts';

export const copyBody = z.object({ agent: agentField, from: pathField('from'), to: pathField('to') });

/**
 * `POST /workspace/copy {from, to[, agent]}` → `{ok: true}` (docs/intentic.md#mutations): recursive for a folder, all or nothing,
 * refused with PAYLOAD_TOO_LARGE over the copy caps before anything is written (core/tree-ops/copy-entry.ts).
 */
export async function workspaceCopy(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { agent, from, to } = await parseJsonBody(request, copyBody, ctx.limits.maxBodyBytes);
  const scope = await mutationScope(ctx, agent);
  const source = await scope.entry(from, 'copy', 'not-inside-or-containing');
  const target = await scope.entry(to, 'copy onto', 'not-inside');
  await copyEntry(scope.view, source, target, { maxEntries: ctx.limits.maxCopyEntries, maxBytes: ctx.limits.maxCopyBytes });
  return jsonResponse({ ok: true });
}
