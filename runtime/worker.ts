/**
 * The Cloudflare Workers entry: the same `createWorkspaceApp` every runtime mounts, over an in-memory
 * workspace. Edge-clean by construction: nothing in this file's import graph may import `node:*`
 * (test/runtime/edge-clean.test.ts checks the bundle's metafile).
 *
 * What this runtime is (and is not):
 * - Storage is a MemoryFileSystem held by the isolate: it starts from the welcome README below, survives
 *   between requests the isolate serves, and is lost when the isolate is evicted. Isolates do not share it.
 *   A durable backend (Durable Object storage) would mount here in place of the memory one.
 * - No pty and no upgrader: `/ws/terminal` answers 501, as every Node-only feature does on this runtime.
 *
 * Bindings (wrangler.toml [vars] / `wrangler secret put`):
 * - WORKSPACE_TOKEN         the API token (set it as a secret). When set it is always required, whatever
 *                           WORKSPACE_NO_AUTH says.
 * - WORKSPACE_NO_AUTH       "true" runs the API open, for a Worker already behind an authenticating gateway.
 * - WORKSPACE_ALLOW_ORIGIN  comma-separated browser origins allowed by CORS and for WebSocket upgrades ("*": any).
 *
 * Auth when neither WORKSPACE_TOKEN nor WORKSPACE_NO_AUTH=true is set: the Node CLI would generate a token and
 * print it, but a Worker has no console anyone reads, and a token nobody can learn is the same as no access.
 * Running open instead would publish the workspace to the internet by omission. So the Worker answers every
 * request except `GET /healthz`, CORS preflights and the panel's static pages (`/`, `/panel/*`, `/docs`, which
 * then show the message) with 503 `{ "error": "…set WORKSPACE_TOKEN…" }` — 503
 * because it is a deployment that is not configured yet, not a client sending the wrong credentials — and
 * behind that gate the app still requires an unguessable generated token, so nothing is open even if the
 * gate were bypassed.
 */
import { MemoryFileSystem } from '../adapters/fs/memory-file-system.ts';
import { createWorkspaceApp, type WorkspaceApp } from './app.ts';
import { generateToken, type AuthConfig } from './auth.ts';
import { withCorsHeaders } from './cors.ts';
import { jsonResponse } from './errors/render.ts';
import { embeddedPanel } from './panel/embedded-panel.ts';
import { panelAssetsFrom } from './panel/panel-assets.ts';

export interface WorkerEnv {
  WORKSPACE_TOKEN?: string;
  WORKSPACE_NO_AUTH?: string;
  WORKSPACE_ALLOW_ORIGIN?: string;
}

// workerd accepts only handlers and classes as a module's exports, so everything here but the default and
// types stays module-private.
const WORKSPACE_ROOT = '/workspace';

const WELCOME_README = `# Welcome to workspace-api on Cloudflare Workers

This is a workspace served by workspace-api from a Cloudflare Worker: the same files, search and skills
API the Node daemon speaks, over an in-memory file system.

- Files you write live in this Worker isolate's memory — kept between the requests it serves, gone when
  it is recycled, and not shared between isolates.
- Terminals need a real machine: \`/ws/terminal\` answers 501 here. Run the Node daemon for a shell.
- Every API call needs the token set as the \`WORKSPACE_TOKEN\` secret, sent as \`Authorization: Bearer <token>\`.

Try \`GET /api/files\`, \`GET /api/file?path=README.md\` and \`PUT /api/file?path=notes/hello.md\`.
`;

interface Mounted {
  app: WorkspaceApp;
  allowedOrigins: string[];
  /** Set when the deployment has no auth decision yet: every API request gets this 503 message. */
  unconfigured: string | undefined;
}

// One app (and one in-memory workspace) per isolate, made on the first request: bindings arrive with the
// request, not at module load, and they cannot change within an isolate (a new deployment is a new isolate).
let mounted: Mounted | undefined;

function mount(env: WorkerEnv): Mounted {
  const token = env.WORKSPACE_TOKEN?.trim() || undefined;
  const noAuth = env.WORKSPACE_NO_AUTH?.trim().toLowerCase() === 'true';
  const auth: AuthConfig = token ? { token } : noAuth ? { disabled: true } : { token: generateToken() };
  const allowedOrigins = (env.WORKSPACE_ALLOW_ORIGIN ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  const fs = new MemoryFileSystem({ [`${WORKSPACE_ROOT}/README.md`]: WELCOME_README });
  return {
    // Workers cancels what a request leaves running: each search request gets an engine of its own.
    app: createWorkspaceApp({
      fs,
      root: WORKSPACE_ROOT,
      auth,
      allowedOrigins,
      search: { perRequest: true },
      // The panel built into this bundle by runtime/worker-build.ts (none when run from source).
      ...(embeddedPanel ? { panel: panelAssetsFrom(embeddedPanel) } : {}),
    }),
    allowedOrigins,
    unconfigured:
      token || noAuth
        ? undefined
        : 'this workspace has no token configured: set the WORKSPACE_TOKEN secret (wrangler secret put WORKSPACE_TOKEN), ' +
          'or set WORKSPACE_NO_AUTH="true" to run it without auth behind a gateway that authenticates',
  };
}

/** What answers before the deployment is configured: liveness, preflights, and the panel's static pages (which then say what is missing). */
function isOpenWithoutAuth(request: Request): boolean {
  if (request.method === 'OPTIONS') return true;
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const { pathname } = new URL(request.url);
  return pathname === '/healthz' || pathname === '/' || pathname === '/docs' || pathname.startsWith('/panel/');
}

export default {
  async fetch(request: Request, env: WorkerEnv = {}): Promise<Response> {
    mounted ??= mount(env);
    const { app, allowedOrigins, unconfigured } = mounted;
    if (unconfigured !== undefined && !isOpenWithoutAuth(request)) {
      return withCorsHeaders(jsonResponse({ error: unconfigured }, 503), request, { allowedOrigins });
    }
    // No RequestEnv: this runtime has no upgrader, so WebSocket routes answer 501.
    return app.fetch(request);
  },
};
