import type { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { createResponse } from '../http/response.ts';

/**
 * The wire dialects whose error shapes differ (docs/architecture.md#errors):
 * - `ori` and `intentic-bytes` (Intentic's plain byte routes): `{ "error": message }`;
 * - `intentic` (Intentic's contract calls, read by an oRPC OpenAPILink): an oRPC error body;
 * - `workspace-files`: `{ "error": { code: "workspace-file/…", message, details } }`.
 */
export type Dialect = 'ori' | 'intentic' | 'intentic-bytes' | 'workspace-files';

/** oRPC's common error codes by status (the ones @orpc/client knows; docs/intentic.md#errors). */
const ORPC_CODES: Readonly<Record<number, string>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  409: 'CONFLICT',
  412: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  501: 'NOT_IMPLEMENTED',
  503: 'SERVICE_UNAVAILABLE',
};

export function jsonResponse(body: unknown, status = 200, headers?: HeadersInit): Response {
  const response = createResponse(JSON.stringify(body), { status, headers });
  response.headers.set('content-type', 'application/json; charset=utf-8');
  return response;
}

/**
 * The status an error has in Intentic's dialect: a path that escapes the workspace is `BAD_REQUEST` there
 * (docs/intentic.md#errors), where the other dialects say 403.
 */
export function intenticStatus(error: WorkspaceError): number {
  return error.code === 'outside-workspace' ? 400 : error.status;
}

/**
 * The oRPC error body: exactly `defined, code, status, message` and, where the error carries zod issues,
 * `data: { issues }`. The OpenAPILink discards a body with any other key (and with it the message).
 */
export function orpcErrorBody(error: WorkspaceError): Record<string, unknown> {
  const status = intenticStatus(error);
  const code = ORPC_CODES[status] ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST');
  const body: Record<string, unknown> = { defined: false, code, status, message: error.message };
  if (Array.isArray(error.details.issues)) body.data = { issues: error.details.issues };
  return body;
}

/** workspace-files' codes: bad input is the gateway's `gateway/bad-request`, everything else `workspace-file/…`. */
function workspaceFilesCode(error: WorkspaceError): string {
  return error.code === 'bad-request' ? 'gateway/bad-request' : `workspace-file/${error.code}`;
}

/** Renders an error in a dialect's own shape, with the error's status. */
export function renderError(dialect: Dialect, error: WorkspaceError): Response {
  const { status, body, headers } = errorPayload(dialect, error);
  return jsonResponse(body, status, headers);
}

/** What renderError sends, before it is a Response: the status, the JSON body and any extra header. */
export function errorPayload(dialect: Dialect, error: WorkspaceError): { status: number; body: unknown; headers?: Record<string, string> } {
  const headers = error.status === 416 && typeof error.details.size === 'number'
    ? { 'content-range': `bytes */${error.details.size}` }
    : undefined;
  switch (dialect) {
    case 'ori':
      return { status: error.status, body: { error: error.message }, ...(headers ? { headers } : {}) };
    case 'intentic-bytes':
      return { status: intenticStatus(error), body: { error: error.message }, ...(headers ? { headers } : {}) };
    case 'intentic':
      return { status: intenticStatus(error), body: orpcErrorBody(error) };
    case 'workspace-files':
      return {
        status: error.status,
        body: { error: { code: workspaceFilesCode(error), message: error.message, details: error.details } },
      };
  }
}
