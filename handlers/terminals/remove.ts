import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { nameParam, terminalsOf } from './terminal-input.ts';

/** `DELETE /terminals/{name}` → `{ok: true}` once its process groups are gone; 404 if unknown. */
export async function removeTerminal(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const terminals = terminalsOf(ctx);
  const name = nameParam(request);
  if (!(await terminals.remove(name))) throw new WorkspaceError('not-found', `no terminal named ${name}`, { name });
  return jsonResponse({ ok: true });
}
