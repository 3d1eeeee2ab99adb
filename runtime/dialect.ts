import { isAuthorized, type AuthConfig } from './auth.ts';
import type { Handler, WorkspaceContext } from './context.ts';
import { renderError, type Dialect } from './errors/render.ts';
import { toWorkspaceError, WorkspaceError } from '../core/errors/workspace-error.ts';

export type RouteHandler = (request: Request, ctx: WorkspaceContext) => Promise<Response>;

export interface GuardOptions {
  /**
   * The handler authorises every request itself, with a credential of its own that it always demands (a
   * media ticket: a `<video src>` cannot send the token), so the guard does not ask for the token.
   */
  authorizesItself?: boolean;
}

/**
 * Wraps a dialect's handler: checks the token, and renders anything it throws in the dialect's own
 * error shape. An error that is not a WorkspaceError or FsError is a bug: it is logged and answered 500.
 */
export function dialectGuard(dialect: Dialect, auth: AuthConfig, options: GuardOptions = {}) {
  return (handler: Handler): RouteHandler =>
    async (request, ctx) => {
      try {
        if (!options.authorizesItself && !isAuthorized(request, auth)) {
          throw new WorkspaceError('unauthorized', 'missing or invalid token');
        }
        return await handler(request, ctx);
      } catch (error) {
        const rendered = toWorkspaceError(error);
        if (rendered.status >= 500 && rendered.code === 'internal') console.error('unhandled error:', error);
        return renderError(dialect, rendered);
      }
    };
}
