import type { WorkspaceContext } from '../../runtime/context.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';

/**
 * Any other method or path under `/workspace/`: an oRPC NOT_FOUND body, so Intentic's client (a newer
 * contract than ours, a typo) reads the message instead of an undecodable `{error}`.
 */
export function workspaceUnknownCall(request: Request, _ctx: WorkspaceContext): Promise<Response> {
  const { pathname } = new URL(request.url);
  return Promise.reject(new WorkspaceError('not-found', `no such call: ${request.method} ${pathname}`));
}
