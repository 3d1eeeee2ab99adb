import { createChangeFeed } from '../core/changes/create-change-feed.ts';
import type { GitStateSource } from '../core/changes/git-state-source.ts';
import { createMediaTickets } from '../core/media/media-tickets.ts';
import { createTerminalManager } from '../core/terminals/create-terminal-manager.ts';
import type { RequestEnv, WorkspaceAppOptions, WorkspaceApp } from './app/app-options.ts';
import { buildChat } from './app/chat.ts';
import { buildFiles } from './app/files.ts';
import { buildSearch } from './app/search.ts';
import { sharedContext } from './app/shared-context.ts';
import { startWatching } from './app/watching.ts';
import { defaultLimits, type Limits, type WorkspaceContext } from './context.ts';
import { preflight, withCorsHeaders, type OriginPolicy } from './cors.ts';
import { normalizeBasePath, renderForPath, withFetchBoundary } from './errors/fetch-boundary.ts';
import { AdmissionGate, type Refusal } from './http/admission-gate.ts';
import { WorkspaceError } from '../core/errors/workspace-error.ts';
import { jsonResponse } from './errors/render.ts';
import { createRouter } from './routes.ts';
import { requestScopedSearch } from './search/request-scoped-search.ts';

export type { RequestEnv, WorkspaceApp, WorkspaceAppOptions } from './app/app-options.ts';

/**
 * The one public entry: every runtime (Node, Workers, tests, a host fetch server) mounts this `fetch`
 * (docs/architecture.md). It composes the subsystems (runtime/app/*), each built once: files (the serialised,
 * observed storage and agents' copies), the change feed and the OS watcher, terminals, search, agent chat; project
 * knowledge and git's clone/sync are per root, in the request context.
 */
export function createWorkspaceApp(options: WorkspaceAppOptions): WorkspaceApp {
  const limits: Limits = { ...defaultLimits, ...options.limits };
  const policy: OriginPolicy = { allowedOrigins: options.allowedOrigins ?? [] };
  const basePath = normalizeBasePath(options.basePath);
  const router = createRouter({ base: basePath, access: { auth: options.auth, origins: policy } });
  const changes = createChangeFeed();
  let gitState: GitStateSource | undefined; // hears every change the feed gets: a new folder may be a new repo
  const files = buildFiles(options, limits, (change) => {
    changes.publish(change);
    gitState?.notice(change);
  });
  const terminals = options.pty
    ? createTerminalManager(options.pty, {
        ringBytes: limits.terminalRingBytes,
        maxSessions: limits.maxTerminals,
        reapMs: limits.terminalReapMs,
        stallMs: limits.terminalStallMs,
      })
    : undefined;
  const search = buildSearch(options, files, changes);
  if (options.watcher) gitState = startWatching(options.watcher, files, changes, () => search.walkingQueries.turn());
  const mediaTickets = createMediaTickets({ ttlMs: limits.mediaTicketTtlMs, key: options.mediaTicketKey });
  const chat = buildChat(options, limits);
  const admission = new AdmissionGate({ maxActive: limits.maxActiveRequests, maxQueued: limits.maxQueuedRequests, maxWaitMs: limits.requestQueueMs });

  const contexts = sharedContext(options, {
    limits,
    files,
    changes,
    terminals,
    search,
    mediaTickets,
    chat,
    gitState: () => gitState,
  });

  /** The request routed with a search engine of its own, closed once its response is made. */
  async function routeWithOwnSearch(request: Request, ctx: WorkspaceContext): Promise<Response> {
    const scoped = requestScopedSearch(() => search.makeSearch({ index: false }));
    try {
      return (await router.fetch(request, { ...ctx, search: scoped.engine })) ?? notFound();
    } finally {
      await scoped.close();
    }
  }

  return {
    changes,
    terminals,
    search: search.search,
    get jobs() {
      return contexts.jobs();
    },
    async close() {
      await contexts.jobs()?.close(); // dev servers' whole trees first: the terminals' hang-up misses what left their sessions
      await Promise.all([search.search.close(), changes.close(), terminals?.closeAll(), options.processes?.killAll(), chat.close()]);
    },
    // Anything thrown outside a route's guard is answered in the dialect of its path, never a stack trace.
    fetch: withFetchBoundary(basePath, async (request: Request, env: RequestEnv = {}) => {
      if (request.method === 'OPTIONS') return preflight(request, policy);
      return admission.run(
        () => answer(request, env),
        (why) => withCorsHeaders(busy(basePath, request, why, limits), request, policy),
      );
    }),
  };

  /** The request answered by its route (or 404), once the admission gate has given it a turn. */
  async function answer(request: Request, env: RequestEnv): Promise<Response> {
    // A foreign page's writes and upgrades are refused by each route's guard, in its dialect (./dialect.ts).
    const isUpgrade = request.headers.get('upgrade')?.toLowerCase() === 'websocket';
    const base = contexts.contextFor(files.knownRoot() ?? (await files.rootPath()));
    const ctx = isUpgrade && env.upgrade ? { ...base, upgrade: env.upgrade } : base;
    if (search.perRequest) return withCorsHeaders(await routeWithOwnSearch(request, ctx), request, policy);
    // Outside `basePath` no route matches at all (the catch-all lives under the base too).
    return withCorsHeaders((await router.fetch(request, ctx)) ?? notFound(), request, policy);
  }
}

/** A request the daemon had no turn for (./http/admission-gate.ts): 429 in its dialect, with when to retry. */
function busy(basePath: string, request: Request, why: Refusal, limits: Limits): Response {
  const message =
    why === 'queue-full'
      ? `the daemon is busy: ${limits.maxQueuedRequests} requests are already waiting; retry shortly`
      : `the daemon is busy: no turn within ${limits.requestQueueMs / 1000} s; retry shortly`;
  const response = renderForPath(basePath, request, new WorkspaceError('too-many', message));
  response.headers.set('retry-after', '1');
  return response;
}

function notFound(): Response {
  return jsonResponse({ error: 'not found' }, 404);
}

