import type { WorkspaceError } from './workspace-error.ts';
import { createResponse } from '../http/response.ts';

/** The wire dialects whose error shapes differ (DESIGN.md §5). */
export type Dialect = 'ori' | 'intentic' | 'workspace-files';

const intenticCodes: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  412: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
};

export function jsonResponse(body: unknown, status = 200, headers?: HeadersInit): Response {
  const response = createResponse(JSON.stringify(body), { status, headers });
  response.headers.set('content-type', 'application/json; charset=utf-8');
  return response;
}

/** Renders an error in a dialect's own shape, with the error's status. */
export function renderError(dialect: Dialect, error: WorkspaceError): Response {
  const extra = error.status === 416 && typeof error.details.size === 'number'
    ? { 'content-range': `bytes */${error.details.size}` }
    : undefined;
  switch (dialect) {
    case 'ori':
      return jsonResponse({ error: error.message }, error.status, extra);
    case 'intentic':
      return jsonResponse(
        { error: error.message, code: intenticCodes[error.status] ?? (error.status >= 500 ? 'INTERNAL' : 'BAD_REQUEST') },
        error.status,
      );
    case 'workspace-files':
      return jsonResponse(
        { error: { code: `workspace-file/${error.code}`, message: error.message, details: error.details } },
        error.status,
      );
  }
}
