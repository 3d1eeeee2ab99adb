import type { WorkspaceContext } from '../../runtime/context.ts';
import { WorkspaceError } from '../../runtime/errors/workspace-error.ts';

/** `DELETE /terminals/{name}` — placeholder. */
export function removeTerminal(_request: Request, _ctx: WorkspaceContext): Response {
  throw new WorkspaceError('not-implemented', 'not yet');
}
