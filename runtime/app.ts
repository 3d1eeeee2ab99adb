import type { FileSystem } from '../adapters/fs/file-system.ts';
import { join, normalize } from '../adapters/fs/posix-path.ts';
import type { PtyAdapter } from '../adapters/pty/pty-adapter.ts';
import { sharedOnlyAgents } from '../core/agents/shared-only-agents.ts';
import type { ChangeFeed } from '../core/changes/change-feed.ts';
import { createChangeFeed } from '../core/changes/create-change-feed.ts';
import type { AuthConfig } from './auth.ts';
import { defaultLimits, type Limits, type WorkspaceContext } from './context.ts';
import { isUpgradeOriginAllowed, preflight, withCorsHeaders, type OriginPolicy } from './cors.ts';
import { jsonResponse } from './errors/render.ts';
import { resolveInsideRoot } from './paths/resolve-inside-root.ts';
import { createRouter } from './routes.ts';
import type { Upgrader } from './websocket.ts';

export interface WorkspaceAppOptions {
  fs: FileSystem;
  /** The workspace root (absolute); resolved to its real path once. */
  root: string;
  /** `{ token }` to require one, `{ disabled: true }` for `--no-auth`. */
  auth: AuthConfig;
  /** Browser origins allowed to call the API and open WebSockets ("*" for any). */
  allowedOrigins?: string[];
  /** Mount the whole API under a prefix, e.g. "/sandbox/abc" behind a gateway. */
  basePath?: string;
  /** Seed 000's "absolute paths are used as-is" (off by default: paths are confined to the root). */
  unrestricted?: boolean;
  limits?: Partial<Limits>;
  home?: string;
  pty?: PtyAdapter;
}

/** Per-request extras a runtime may pass: the Node server passes an upgrader for WebSocket requests. */
export interface RequestEnv {
  upgrade?: Upgrader;
}

export interface WorkspaceApp {
  fetch(request: Request, env?: RequestEnv): Promise<Response>;
  /** The change feed every write and (on Node) the OS watcher report to: for in-process consumers. */
  readonly changes: ChangeFeed;
  /** Stops background work (watchers, change streams). The app answers nothing useful afterwards. */
  close(): Promise<void>;
}

/** The one public entry: every runtime (Node, Workers, tests, a host fetch server) mounts this `fetch`. */
export function createWorkspaceApp(options: WorkspaceAppOptions): WorkspaceApp {
  const limits: Limits = { ...defaultLimits, ...options.limits };
  const policy: OriginPolicy = { allowedOrigins: options.allowedOrigins ?? [] };
  const basePath = normalizeBasePath(options.basePath);
  const router = createRouter({ base: basePath, auth: options.auth });
  const unrestricted = options.unrestricted ?? false;
  const changes = createChangeFeed();
  let realRoot: string | undefined;

  async function rootPath(): Promise<string> {
    if (realRoot) return realRoot;
    try {
      realRoot = await options.fs.realpath(options.root);
      return realRoot;
    } catch {
      return normalize(options.root); // missing root: handlers answer 404; retried on the next request
    }
  }

  const resolveShared = async (path: string) =>
    resolveInsideRoot(options.fs, await rootPath(), path, { unrestricted });
  const agents = sharedOnlyAgents(options.fs, rootPath, resolveShared, join(normalize(options.root), '.agents'));

  return {
    changes,
    async close() {
      await changes.close();
    },
    async fetch(request, env = {}) {
      if (request.method === 'OPTIONS') return preflight(request, policy);
      const isUpgrade = request.headers.get('upgrade')?.toLowerCase() === 'websocket';
      if (isUpgrade && !isUpgradeOriginAllowed(request, policy)) {
        return jsonResponse({ error: 'origin not allowed' }, 403);
      }
      const root = await rootPath();
      const ctx: WorkspaceContext = {
        fs: options.fs,
        root,
        unrestricted,
        limits,
        home: options.home,
        pty: options.pty,
        upgrade: isUpgrade ? env.upgrade : undefined,
        resolve: (path) => resolveInsideRoot(options.fs, root, path, { unrestricted }),
        changes,
        agents,
        view: (agent) => agents.view(agent),
      };
      // Outside `basePath` no route matches at all (the catch-all lives under the base too).
      const response: Response = (await router.fetch(request, ctx)) ?? jsonResponse({ error: 'not found' }, 404);
      return withCorsHeaders(response, request, policy);
    },
  };
}

function normalizeBasePath(basePath: string | undefined): string {
  if (!basePath) return '';
  const normalized = normalize('/' + basePath);
  return normalized === '/' ? '' : normalized;
}
