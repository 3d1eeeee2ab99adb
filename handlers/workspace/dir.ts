import { z } from 'zod';
import { makeFolders } from '../../core/tree-ops/make-folders.ts';
import { displayPath } from '../../core/tree-ops/display-path.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { parseJsonBody } from '../../runtime/validation.ts';
import { agentField, mutationScope, pathField } from '../shared/mutation-scope.ts';

export const makeDirBody = z.object({ agent: agentField, path: pathField('path') });

/**
 * `POST /workspace/dir {path[, agent]}` → `{ok: true}` (docs/intentic.md#mutations): the folder and any missing parents.
 * `mkdir -p` semantics: a folder already there is success; a file (or anything else) at the path or above it
 * is CONFLICT.
 */
export async function workspaceMakeDir(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { agent, path } = await parseJsonBody(request, makeDirBody, ctx.limits.maxBodyBytes);
  const scope = await mutationScope(ctx, agent);
  const folder = await scope.folder(path);
  await makeFolders(scope.view.fs, folder, (at) => displayPath(scope.view.root, at));
  return jsonResponse({ ok: true });
}
