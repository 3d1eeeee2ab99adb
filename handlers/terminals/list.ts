import type { WorkspaceContext } from '../../runtime/context.ts';
import { WorkspaceError } from '../../runtime/errors/workspace-error.ts';

/** `GET /terminals` — placeholder until the named-terminal handlers land. */
export function listTerminals(_request: Request, _ctx: WorkspaceContext): Response {
  throw new WorkspaceError('not-implemented', 'not yet');
}
