import { Router, type IRequest } from 'itty-router';
import { health } from '../handlers/health.ts';
import { capabilities } from '../handlers/capabilities.ts';
import type { Handler, WorkspaceContext } from './context.ts';
import { dialectGuard, type GuardOptions, type RouteAccess } from './dialect.ts';
import { jsonResponse } from './errors/render.ts';
import { lazyHandler } from './lazy-handler.ts';

// Each handler module is loaded on its first request (./lazy-handler.ts says why).
const openapiDocument = lazyHandler(() => import('../handlers/docs/openapi.ts'), 'openapiDocument');
const wsProtocolDocument = lazyHandler(() => import('../handlers/docs/ws-protocol.ts'), 'wsProtocolDocument');
const panelPage = lazyHandler(() => import('../handlers/panel/serve-panel.ts'), 'panelPage');
const panelFile = lazyHandler(() => import('../handlers/panel/serve-panel.ts'), 'panelFile');
const apiReferencePage = lazyHandler(() => import('../handlers/panel/serve-panel.ts'), 'apiReferencePage');
const listFiles = lazyHandler(() => import('../handlers/api/list-files.ts'), 'listFiles');
const rawFile = lazyHandler(() => import('../handlers/api/raw-file.ts'), 'rawFile');
const readFile = lazyHandler(() => import('../handlers/api/read-file.ts'), 'readFile');
const searchFiles = lazyHandler(() => import('../handlers/api/search-files.ts'), 'searchFiles');
const listSkills = lazyHandler(() => import('../handlers/api/skills.ts'), 'listSkills');
const terminal = lazyHandler(() => import('../handlers/api/terminal.ts'), 'terminal');
const writeFile = lazyHandler(() => import('../handlers/api/write-file.ts'), 'writeFile');
const rpcSocket = lazyHandler(() => import('../handlers/rpc/ws.ts'), 'rpcSocket');
const attachTerminal = lazyHandler(() => import('../handlers/terminals/attach.ts'), 'attachTerminal');
const createTerminal = lazyHandler(() => import('../handlers/terminals/create.ts'), 'createTerminal');
const listTerminals = lazyHandler(() => import('../handlers/terminals/list.ts'), 'listTerminals');
const removeTerminal = lazyHandler(() => import('../handlers/terminals/remove.ts'), 'removeTerminal');
const workspaceCreateAgent = lazyHandler(() => import('../handlers/workspace/agents.ts'), 'workspaceCreateAgent');
const workspaceDeleteAgent = lazyHandler(() => import('../handlers/workspace/agents.ts'), 'workspaceDeleteAgent');
const workspaceChildren = lazyHandler(() => import('../handlers/workspace/children.ts'), 'workspaceChildren');
const workspaceCopy = lazyHandler(() => import('../handlers/workspace/copy.ts'), 'workspaceCopy');
const workspaceMakeDir = lazyHandler(() => import('../handlers/workspace/dir.ts'), 'workspaceMakeDir');
const workspaceDeleteEntry = lazyHandler(() => import('../handlers/workspace/entry.ts'), 'workspaceDeleteEntry');
const workspaceFile = lazyHandler(() => import('../handlers/workspace/file.ts'), 'workspaceFile');
const workspaceMediaTicket = lazyHandler(() => import('../handlers/workspace/media-ticket.ts'), 'workspaceMediaTicket');
const workspaceMedia = lazyHandler(() => import('../handlers/workspace/media.ts'), 'workspaceMedia');
const workspaceMove = lazyHandler(() => import('../handlers/workspace/move.ts'), 'workspaceMove');
const workspaceRaw = lazyHandler(() => import('../handlers/workspace/raw.ts'), 'workspaceRaw');
const workspaceRepos = lazyHandler(() => import('../handlers/workspace/repos.ts'), 'workspaceRepos');
const workspaceClone = lazyHandler(() => import('../handlers/workspace/clone.ts'), 'workspaceClone');
const workspaceSync = lazyHandler(() => import('../handlers/workspace/sync.ts'), 'workspaceSync');
const workspaceResolve = lazyHandler(() => import('../handlers/workspace/resolve.ts'), 'workspaceResolve');
const workspaceSearch = lazyHandler(() => import('../handlers/workspace/search.ts'), 'workspaceSearch');
const workspaceTree = lazyHandler(() => import('../handlers/workspace/tree.ts'), 'workspaceTree');
const workspaceUpload = lazyHandler(() => import('../handlers/workspace/upload.ts'), 'workspaceUpload');
const workspaceUnknownCall = lazyHandler(() => import('../handlers/workspace/unknown-call.ts'), 'workspaceUnknownCall');
const workspaceHealth = lazyHandler(() => import('../handlers/workspace/health.ts'), 'workspaceHealth');
const workspaceClassify = lazyHandler(() => import('../handlers/workspace/classify.ts'), 'workspaceClassify');
const workspaceTemplates = lazyHandler(() => import('../handlers/workspace/templates.ts'), 'workspaceTemplates');
const workspaceAddApps = lazyHandler(() => import('../handlers/workspace/add-apps.ts'), 'workspaceAddApps');
const workspaceFilesChanges = lazyHandler(() => import('../handlers/workspace-files/changes.ts'), 'workspaceFilesChanges');
const workspaceFilesList = lazyHandler(() => import('../handlers/workspace-files/list.ts'), 'workspaceFilesList');
const workspaceFilesReadBytes = lazyHandler(() => import('../handlers/workspace-files/read-bytes.ts'), 'workspaceFilesReadBytes');
const workspaceFilesRead = lazyHandler(() => import('../handlers/workspace-files/read.ts'), 'workspaceFilesRead');
const workspaceFilesStat = lazyHandler(() => import('../handlers/workspace-files/stat.ts'), 'workspaceFilesStat');
const workspaceInstall = lazyHandler(() => import('../handlers/workspace/install.ts'), 'workspaceInstall');
const workspaceApps = lazyHandler(() => import('../handlers/workspace/apps.ts'), 'workspaceApps');
const workspaceStartApp = lazyHandler(() => import('../handlers/workspace/apps.ts'), 'workspaceStartApp');
const workspaceStopApp = lazyHandler(() => import('../handlers/workspace/apps.ts'), 'workspaceStopApp');
const workspaceRunTests = lazyHandler(() => import('../handlers/workspace/tests.ts'), 'workspaceRunTests');
const workspaceSetup = lazyHandler(() => import('../handlers/workspace/setup.ts'), 'workspaceSetup');
const workspaceGraph = lazyHandler(() => import('../handlers/workspace/graph.ts'), 'workspaceGraph');
const workspaceModules = lazyHandler(() => import('../handlers/workspace/modules.ts'), 'workspaceModules');

/**
 * Who may call a route and in which shape its errors are: `public` answers anyone (no guard: it neither acts nor
 * reveals anything), the others are the dialect guards of ./dialect.ts — `intentic-ticketed` is the byte-route
 * guard for a route that authorises itself (the media stream, by its ticket: handlers/workspace/media.ts).
 */
export type RouteAccessKind = 'public' | 'ori' | 'intentic' | 'intentic-bytes' | 'intentic-ticketed' | 'workspace-files';

/**
 * Which scoped tokens may call a route besides the full token (docs/architecture.md#scoped-tokens). `read`: the
 * route only reads (GET routes that start nothing; `/ws`, whose commands are filtered one by one:
 * handlers/rpc/command-table.ts; a media ticket, a read's pass). `agent`: the route acts through `ctx.view(agent)`,
 * which lets an agent token reach its own copy only (./scoped-context.ts). Terminals, git writes, clones, jobs and
 * the shared tree's writes are the full token's alone; a row without `scopes` is too, so a new route starts closed.
 */
const READ = ['read'] as const;
const AGENT = ['agent'] as const;
const READ_OR_AGENT = ['read', 'agent'] as const;

export type RouteMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';

/** One row of the route table: itty-router's path syntax (`:name` for a path parameter). */
export interface RouteRow {
  method: RouteMethod;
  path: string;
  access: RouteAccessKind;
  handler: Handler;
  /** The scoped tokens it is open to, besides the full token (see READ, AGENT above); none when absent. */
  scopes?: GuardOptions['scopes'];
}

/**
 * The route table: every endpoint is a standalone fetch handler, wrapped by its access kind's guard, which adds
 * the Origin and token checks and the error shape. The router is built from this list and nothing else, so the
 * OpenAPI document (runtime/openapi/) can be checked against what is really routed.
 */
export const routeTable: readonly RouteRow[] = [
  // public: neither acts nor reveals anything (docs/architecture.md#common-endpoints)
  { method: 'GET', path: '/healthz', access: 'public', handler: health },
  { method: 'GET', path: '/openapi.json', access: 'public', handler: openapiDocument },
  { method: 'GET', path: '/ws/protocol.json', access: 'public', handler: wsProtocolDocument },
  // the web panel and the API reference: static files, the token is asked for by the page (docs/panel.md)
  { method: 'GET', path: '/', access: 'public', handler: panelPage },
  { method: 'GET', path: '/panel/:file+', access: 'public', handler: panelFile },
  { method: 'GET', path: '/docs', access: 'public', handler: apiReferencePage },
  // what this runtime can do; needs the token like any API call (docs/architecture.md#capabilities)
  { method: 'GET', path: '/capabilities', access: 'ori', handler: capabilities, scopes: READ_OR_AGENT },
  // ori (docs/ori.md)
  { method: 'GET', path: '/api/files', access: 'ori', handler: listFiles, scopes: READ },
  { method: 'GET', path: '/api/files/search', access: 'ori', handler: searchFiles, scopes: READ },
  { method: 'GET', path: '/api/file', access: 'ori', handler: readFile, scopes: READ },
  { method: 'PUT', path: '/api/file', access: 'ori', handler: writeFile },
  { method: 'GET', path: '/api/raw', access: 'ori', handler: rawFile, scopes: READ },
  { method: 'HEAD', path: '/api/raw', access: 'ori', handler: rawFile, scopes: READ },
  { method: 'GET', path: '/api/skills', access: 'ori', handler: listSkills, scopes: READ },
  { method: 'GET', path: '/ws/terminal', access: 'ori', handler: terminal },
  // NoIDE WebSocket JSON protocol (docs/noide-protocol.md; errors before the upgrade are HTTP `{ "error" }`)
  { method: 'GET', path: '/ws', access: 'ori', handler: rpcSocket, scopes: READ },
  // named terminals — ours, docs/terminals.md#named-terminals-over-http (`{ "error": message }`)
  { method: 'GET', path: '/terminals', access: 'ori', handler: listTerminals },
  { method: 'POST', path: '/terminals', access: 'ori', handler: createTerminal },
  { method: 'GET', path: '/terminals/:name', access: 'ori', handler: attachTerminal },
  { method: 'DELETE', path: '/terminals/:name', access: 'ori', handler: removeTerminal },
  // Intentic — contract calls (docs/intentic.md; oRPC error bodies)
  { method: 'GET', path: '/workspace/tree', access: 'intentic', handler: workspaceTree, scopes: READ_OR_AGENT },
  { method: 'GET', path: '/workspace/children', access: 'intentic', handler: workspaceChildren, scopes: READ_OR_AGENT },
  { method: 'GET', path: '/workspace/file', access: 'intentic', handler: workspaceFile, scopes: READ_OR_AGENT },
  { method: 'GET', path: '/workspace/resolve', access: 'intentic', handler: workspaceResolve, scopes: READ_OR_AGENT },
  { method: 'GET', path: '/workspace/search', access: 'intentic', handler: workspaceSearch, scopes: READ },
  { method: 'GET', path: '/workspace/repos', access: 'intentic', handler: workspaceRepos, scopes: READ },
  { method: 'POST', path: '/workspace/repos', access: 'intentic', handler: workspaceClone },
  { method: 'POST', path: '/workspace/sync', access: 'intentic', handler: workspaceSync },
  { method: 'POST', path: '/workspace/dir', access: 'intentic', handler: workspaceMakeDir, scopes: AGENT },
  { method: 'DELETE', path: '/workspace/entry', access: 'intentic', handler: workspaceDeleteEntry, scopes: AGENT },
  { method: 'POST', path: '/workspace/move', access: 'intentic', handler: workspaceMove, scopes: AGENT },
  { method: 'POST', path: '/workspace/copy', access: 'intentic', handler: workspaceCopy, scopes: AGENT },
  { method: 'POST', path: '/workspace/media-ticket', access: 'intentic', handler: workspaceMediaTicket, scopes: READ_OR_AGENT },
  { method: 'POST', path: '/workspace/agents', access: 'intentic', handler: workspaceCreateAgent },
  { method: 'DELETE', path: '/workspace/agents/:agent', access: 'intentic', handler: workspaceDeleteAgent },
  // Intentic — its plain byte routes (`{ "error": message }`)
  { method: 'GET', path: '/workspace/raw', access: 'intentic-bytes', handler: workspaceRaw, scopes: READ_OR_AGENT },
  { method: 'GET', path: '/workspace/media', access: 'intentic-ticketed', handler: workspaceMedia },
  { method: 'HEAD', path: '/workspace/media', access: 'intentic-ticketed', handler: workspaceMedia },
  { method: 'POST', path: '/workspace/upload', access: 'intentic-bytes', handler: workspaceUpload, scopes: AGENT },
  // workspace-files (docs/workspace-files.md)
  { method: 'GET', path: '/workspace-files/stat', access: 'workspace-files', handler: workspaceFilesStat, scopes: READ },
  { method: 'GET', path: '/workspace-files/read', access: 'workspace-files', handler: workspaceFilesRead, scopes: READ },
  { method: 'GET', path: '/workspace-files/read-bytes', access: 'workspace-files', handler: workspaceFilesReadBytes, scopes: READ },
  { method: 'GET', path: '/workspace-files/list', access: 'workspace-files', handler: workspaceFilesList, scopes: READ },
  { method: 'GET', path: '/workspace-files/changes', access: 'workspace-files', handler: workspaceFilesChanges, scopes: READ },
  // Intentic — project jobs (docs/intentic-projects.md#jobs-and-their-terminals, core/jobs): installs, dev servers, test runs
  { method: 'POST', path: '/workspace/setup/install', access: 'intentic', handler: workspaceInstall },
  { method: 'GET', path: '/workspace/repos/:repo/apps', access: 'intentic', handler: workspaceApps, scopes: READ },
  { method: 'POST', path: '/workspace/repos/:repo/apps/:app/start', access: 'intentic', handler: workspaceStartApp },
  { method: 'POST', path: '/workspace/repos/:repo/apps/:app/stop', access: 'intentic', handler: workspaceStopApp },
  { method: 'POST', path: '/workspace/repos/:repo/tests', access: 'intentic', handler: workspaceRunTests },
  // Intentic — the project model (docs/intentic-projects.md, core/projects): setup, package graph, modules
  { method: 'GET', path: '/workspace/setup', access: 'intentic', handler: workspaceSetup, scopes: READ },
  { method: 'GET', path: '/workspace/repos/:repo/graph', access: 'intentic', handler: workspaceGraph, scopes: READ },
  { method: 'GET', path: '/workspace/modules', access: 'intentic', handler: workspaceModules, scopes: READ },
  // Intentic — health and classify (docs/intentic-projects.md#health, core/health, core/classify)
  { method: 'GET', path: '/workspace/health', access: 'intentic', handler: workspaceHealth, scopes: READ },
  { method: 'GET', path: '/workspace/classify', access: 'intentic', handler: workspaceClassify, scopes: READ },
  // Intentic — templates and add-apps (docs/intentic-projects.md#templates, core/projects/template-source.ts, core/jobs/add-apps.ts)
  { method: 'GET', path: '/workspace/templates', access: 'intentic', handler: workspaceTemplates, scopes: READ },
  { method: 'POST', path: '/workspace/repos/:repo/apps', access: 'intentic', handler: workspaceAddApps },
];

/**
 * The router over the route table, then the two catch-alls: any other call under `/workspace/` is an oRPC
 * NOT_FOUND body (Intentic's clients read only those), anything else `{ "error": "not found" }`.
 */
export function createRouter({ base, access }: { base: string; access: RouteAccess }) {
  const guard = (kind: RouteAccessKind, scopes: GuardOptions['scopes']): ((handler: Handler) => Handler) => {
    switch (kind) {
      case 'public':
        return (handler) => handler;
      case 'intentic-ticketed':
        return dialectGuard('intentic-bytes', access, { authorizesItself: true });
      default:
        return dialectGuard(kind, access, scopes === undefined ? {} : { scopes });
    }
  };
  const router = Router<IRequest, [WorkspaceContext], Response>({ base });
  for (const { method, path, access: kind, handler, scopes } of routeTable) {
    router[verbs[method]](path, guard(kind, scopes)(handler));
  }
  // The catch-all's answer (NOT_FOUND) is the same for every token: a scoped one gets it too, not a 403.
  return router
    .all('/workspace/*', guard('intentic', READ_OR_AGENT)(workspaceUnknownCall))
    .all('*', () => jsonResponse({ error: 'not found' }, 404));
}

const verbs = { GET: 'get', HEAD: 'head', POST: 'post', PUT: 'put', DELETE: 'delete' } as const satisfies Record<RouteMethod, string>;
