/**
 * The Cloudflare Workers entry (docs/architecture.md#cloudflare-workers): workspaces on the edge, one Durable Object
 * per workspace. Edge-clean by construction: nothing in this file's import graph may import `node:*`
 * (test/runtime/edge-clean.test.ts checks the bundle's metafile).
 *
 * - `/w/<workspace-id>/…` goes to that workspace's object (`WORKSPACES.idFromName(id)`), which mounts the same
 *   `createWorkspaceApp` under `/w/<id>` over its SQLite storage (./worker/workspace-object.ts). An id is
 *   `^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`; another is 400.
 * - `/` answers a short JSON index, `/healthz` liveness; anything else 404. There is no workspace outside `/w/`.
 * - No pty and no upgrader: terminals and WebSocket routes answer 501, as every Node-only feature does here.
 *
 * Auth (./worker/worker-env.ts): `WORKSPACE_TOKEN` opens every workspace; with `WORKSPACE_TOKEN_SECRET`, each
 * workspace also opens with its own token (HMAC of its id); `WORKSPACE_NO_AUTH="true"` runs open behind a gateway.
 * With none of them, every workspace request except liveness, preflights and the panel's static pages (which then
 * say what is missing) is 503 `{ "error": "…set WORKSPACE_TOKEN…" }` — 503 because the deployment is not
 * configured yet, not because a client sent the wrong credentials.
 */
import { API_VERSION } from './openapi/api-version.ts';
import { preflight, withCorsHeaders } from './cors.ts';
import { jsonResponse } from './errors/render.ts';
import { allowedOriginsOf, unconfiguredReason, type WorkerEnv } from './worker/worker-env.ts';
import { WORKSPACE_ID_RULE, workspaceTarget } from './worker/workspace-id.ts';

export type { WorkerEnv } from './worker/worker-env.ts';
// workerd accepts only handlers and classes as a module's exports: the object class and the default handler.
export { WorkspaceObject } from './worker/workspace-object.ts';

/** What answers before the deployment is configured: liveness, preflights, and the panel's static pages. */
function isOpenWithoutAuth(request: Request, basePath: string): boolean {
  if (request.method === 'OPTIONS') return true;
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const path = new URL(request.url).pathname.slice(basePath.length) || '/';
  return path === '/healthz' || path === '/' || path === '/docs' || path.startsWith('/panel/');
}

/** The Worker's own paths: the index, liveness, and 404 for the rest. */
function ownAnswer(request: Request): Response {
  const { pathname } = new URL(request.url);
  if (request.method !== 'GET' && request.method !== 'HEAD') return jsonResponse({ error: 'not found' }, 404);
  if (pathname === '/healthz') return jsonResponse({ ok: true });
  if (pathname === '/') {
    return jsonResponse({
      name: 'workspace-api',
      version: API_VERSION,
      workspaces: '/w/{id}/',
      id: WORKSPACE_ID_RULE,
      api: '/w/{id}/openapi.json',
      panel: '/w/{id}/',
    });
  }
  return jsonResponse({ error: 'not found' }, 404);
}

export default {
  async fetch(request: Request, env: WorkerEnv = {}): Promise<Response> {
    const allowedOrigins = allowedOriginsOf(env);
    const target = workspaceTarget(new URL(request.url).pathname);
    if (target.kind === 'worker') {
      if (request.method === 'OPTIONS') return preflight(request, { allowedOrigins });
      return withCorsHeaders(ownAnswer(request), request, { allowedOrigins });
    }
    if (target.kind === 'bad-id') return withCorsHeaders(jsonResponse({ error: WORKSPACE_ID_RULE }, 400), request, { allowedOrigins });
    const unconfigured = unconfiguredReason(env);
    if (unconfigured !== undefined && !isOpenWithoutAuth(request, target.basePath)) {
      return withCorsHeaders(jsonResponse({ error: unconfigured }, 503), request, { allowedOrigins });
    }
    if (env.WORKSPACES === undefined) {
      return withCorsHeaders(jsonResponse({ error: 'this deployment has no WORKSPACES Durable Object binding (wrangler.toml)' }, 503), request, { allowedOrigins });
    }
    return env.WORKSPACES.get(env.WORKSPACES.idFromName(target.id)).fetch(request);
  },
};
