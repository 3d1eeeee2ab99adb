/**
 * The app's outermost guard, around routing itself (each route's handler has its own: runtime/dialect.ts). A
 * request whose URL does not parse is the client's mistake (400); anything thrown past the routes (routing, CORS,
 * a handler module that fails to load) is a bug, answered 500 `internal error` in the shape of the dialect the
 * path belongs to and logged once, so no host server's default error page (a stack trace) ever answers.
 */
import { normalize } from '../../adapters/fs/posix-path.ts';
import { toWorkspaceError, type WorkspaceError } from '../../core/errors/workspace-error.ts';
import { dialectOfPath } from '../dialect.ts';
import { jsonResponse, renderError, type Dialect } from './render.ts';
import { logUnexpectedError, requestLabel } from './unexpected-error.ts';

type Fetch<E> = (request: Request, env?: E) => Promise<Response>;

export function withFetchBoundary<E>(basePath: string, fetch: Fetch<E>): Fetch<E> {
  return async (request, env) => {
    if (!URL.canParse(request.url)) return jsonResponse({ error: 'malformed request URL' }, 400);
    try {
      return await fetch(request, env);
    } catch (error) {
      const rendered = toWorkspaceError(error);
      if (rendered.code === 'internal') logUnexpectedError(requestLabel(request), error);
      return renderForPath(basePath, request, rendered);
    }
  };
}

/** `error` in the shape of the dialect `request`'s path (inside `basePath`) belongs to. */
export function renderForPath(basePath: string, request: Request, error: WorkspaceError): Response {
  return renderError(dialectInBase(basePath, new URL(request.url).pathname), error);
}

/** A mount point as the app compares paths with it: '' for none, else '/x' (one leading slash, normalized). */
export function normalizeBasePath(basePath: string | undefined): string {
  if (!basePath) return '';
  const normalized = normalize('/' + basePath);
  return normalized === '/' ? '' : normalized;
}

/** The dialect of `pathname` once `basePath` (normalized: normalizeBasePath) is taken off its front. */
export function dialectInBase(basePath: string, pathname: string): Dialect {
  return dialectOfPath(basePath !== '' && pathname.startsWith(`${basePath}/`) ? pathname.slice(basePath.length) : pathname);
}
