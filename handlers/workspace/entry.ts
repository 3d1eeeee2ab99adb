import type { WorkspaceContext } from '../../runtime/context.ts';
import { WorkspaceError } from '../../runtime/errors/workspace-error.ts';

// PLACEHOLDER: replaced by the issue-5 work that owns this route.
export function workspaceDeleteEntry(_request: Request, _ctx: WorkspaceContext): Promise<Response> {
  return Promise.reject(new WorkspaceError('not-implemented', 'not implemented yet'));
}
