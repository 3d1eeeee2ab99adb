import { createResponse } from './http/response.ts';

/**
 * Cross-origin policy: which browser origins may call the API (CORS) and open WebSockets.
 * `allowedOrigins` holds exact origins ("https://ide.example") or "*".
 */
export interface OriginPolicy {
  allowedOrigins: readonly string[];
}

const ALLOWED_HEADERS = 'authorization, content-type, x-intentic-control, x-intentic-base-hash, range, if-range, if-match, if-none-match, if-modified-since, if-unmodified-since';
const EXPOSED_HEADERS = 'content-range, content-length, content-type, accept-ranges, etag, last-modified';
const ALLOWED_METHODS = 'GET, HEAD, PUT, POST, PATCH, DELETE, OPTIONS';

export function isOriginAllowed(origin: string, policy: OriginPolicy): boolean {
  return policy.allowedOrigins.includes('*') || policy.allowedOrigins.includes(origin);
}

/** Answers a CORS preflight: 204 with the grants for an allowed origin, 403 otherwise. */
export function preflight(request: Request, policy: OriginPolicy): Response {
  const origin = request.headers.get('origin');
  if (!origin || !isOriginAllowed(origin, policy)) {
    return createResponse(JSON.stringify({ error: 'origin not allowed' }), {
      status: 403,
      headers: { 'content-type': 'application/json; charset=utf-8', vary: 'Origin' },
    });
  }
  return createResponse(null, {
    status: 204,
    headers: {
      'access-control-allow-origin': origin,
      'access-control-allow-methods': ALLOWED_METHODS,
      'access-control-allow-headers': request.headers.get('access-control-request-headers') ?? ALLOWED_HEADERS,
      'access-control-max-age': '600',
      vary: 'Origin',
    },
  });
}

/** Adds the CORS grant to an actual response when the request came from an allowed origin. */
export function withCorsHeaders(response: Response, request: Request, policy: OriginPolicy): Response {
  const origin = request.headers.get('origin');
  if (!origin || !isOriginAllowed(origin, policy) || response.status === 101) return response;
  const headers = new Headers(response.headers);
  headers.set('access-control-allow-origin', origin);
  headers.set('access-control-expose-headers', EXPOSED_HEADERS);
  headers.append('vary', 'Origin');
  return createResponse(response.body, { status: response.status, statusText: response.statusText, headers });
}

/**
 * WebSocket upgrades are not covered by CORS, and neither is a "simple" cross-origin POST (a `text/plain`
 * body, a form): the browser sends it without a preflight and only hides the answer, so a page on any site
 * could act with the user's ambient access (under `--no-auth`, start a terminal). Both are refused unless
 * the request comes from no browser (no Origin), the server's own origin, or a listed origin.
 */
export function isOriginAllowedToAct(request: Request, policy: OriginPolicy): boolean {
  const origin = request.headers.get('origin');
  if (!origin) return true;
  if (isOriginAllowed(origin, policy)) return true;
  const host = request.headers.get('host') ?? new URL(request.url).host;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}
