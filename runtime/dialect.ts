import { authenticate, type AuthConfig } from './auth.ts';
import type { TokenScope } from '../core/auth/scoped-token.ts';
import type { Handler, WorkspaceContext } from './context.ts';
import { isOriginAllowedToAct, type OriginPolicy } from './cors.ts';
import { renderError, type Dialect } from './errors/render.ts';
import { toWorkspaceError, WorkspaceError } from '../core/errors/workspace-error.ts';
import { logUnexpectedError, requestLabel } from './errors/unexpected-error.ts';
import { scopedContext } from './scoped-context.ts';

export type RouteHandler = (request: Request, ctx: WorkspaceContext) => Promise<Response>;

/** What every guarded route checks before its handler runs: the token and, for requests that act, the Origin. */
export interface RouteAccess {
  auth: AuthConfig;
  origins: OriginPolicy;
}

export interface GuardOptions {
  /**
   * The handler authorises every request itself, with a credential of its own that it always demands (a
   * media ticket: a `<video src>` cannot send the token), so the guard does not ask for the token.
   */
  authorizesItself?: boolean;
  /**
   * The scoped tokens that may call the route besides the full token (docs/architecture.md#scoped-tokens): `read`
   * on routes that only read, `agent` on routes that act through an agent's copy. None: the full token only.
   */
  scopes?: readonly TokenScope['kind'][];
}

/**
 * Wraps a dialect's handler: refuses a browser page of a foreign origin that would act (./cors.ts says why),
 * checks the token, and renders anything it throws in the dialect's own error shape — so an Origin refusal
 * reads like every other error of that dialect (an oRPC body on Intentic's calls, docs/intentic.md#errors).
 * An error that is not a WorkspaceError or FsError is a bug: it is logged and answered 500.
 */
export function dialectGuard(dialect: Dialect, access: RouteAccess, options: GuardOptions = {}) {
  return (handler: Handler): RouteHandler =>
    async (request, ctx) => {
      try {
        if (actsOnTheWorkspace(request) && !isOriginAllowedToAct(request, access.origins)) {
          throw new WorkspaceError('forbidden', 'origin not allowed');
        }
        if (options.authorizesItself) return await handler(request, ctx);
        const principal = authenticate(request, access.auth);
        if (!principal) throw new WorkspaceError('unauthorized', 'missing or invalid token');
        if (principal.kind === 'full') return await handler(request, ctx);
        const { scope } = principal.grant;
        if (!options.scopes?.includes(scope.kind)) {
          throw new WorkspaceError('forbidden', `a ${scope.kind === 'read' ? 'read-only' : 'agent'} token cannot call ${request.method} ${routeName(request)}`);
        }
        return await handler(request, scopedContext(ctx, scope));
      } catch (error) {
        const rendered = toWorkspaceError(error);
        if (rendered.code === 'internal') logUnexpectedError(requestLabel(request), error);
        return renderError(dialect, rendered);
      }
    };
}

/** The path a refusal names: the route, never its query (which may carry a token). */
function routeName(request: Request): string {
  return requestLabel(request).replace(/^\S+ /, '');
}

/** A write (any method but GET/HEAD) or a WebSocket upgrade: what a foreign page must not be able to start. */
function actsOnTheWorkspace(request: Request): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return true;
  return request.headers.get('upgrade')?.toLowerCase() === 'websocket';
}

/**
 * The dialect a path belongs to, for an error raised before any route's guard ran (runtime/errors/fetch-boundary.ts):
 * the route table's prefixes, `basePath` already removed. Anything that is no dialect's answers in ori's shape.
 */
export function dialectOfPath(pathname: string): Dialect {
  if (pathname.startsWith('/workspace-files/')) return 'workspace-files';
  if (/^\/workspace\/(raw|media|upload)$/.test(pathname)) return 'intentic-bytes';
  if (pathname.startsWith('/workspace/')) return 'intentic';
  return 'ori';
}
