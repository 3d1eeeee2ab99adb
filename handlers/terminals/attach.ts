import type { WorkspaceContext } from '../../runtime/context.ts';
import { WorkspaceError } from '../../runtime/errors/workspace-error.ts';

/** `GET /terminals/{name}` — placeholder (WebSocket attach with `?from=N`; plain GET: the terminal). */
export function attachTerminal(_request: Request, _ctx: WorkspaceContext): Response {
  throw new WorkspaceError('not-implemented', 'not yet');
}
