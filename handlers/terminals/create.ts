import type { WorkspaceContext } from '../../runtime/context.ts';
import { WorkspaceError } from '../../runtime/errors/workspace-error.ts';

/** `POST /terminals` — placeholder. */
export function createTerminal(_request: Request, _ctx: WorkspaceContext): Response {
  throw new WorkspaceError('not-implemented', 'not yet');
}
