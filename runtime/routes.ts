import { Router, type IRequest } from 'itty-router';
import { health } from '../handlers/health.ts';
import type { WorkspaceContext } from './context.ts';
import { dialectGuard, type RouteAccess } from './dialect.ts';
import { jsonResponse } from './errors/render.ts';
import { lazyHandler } from './lazy-handler.ts';

// Each handler module is loaded on its first request (./lazy-handler.ts says why).
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
 * The route table: every endpoint is a standalone fetch handler; the guard adds the Origin and token checks
 * and the error shape. Only `/healthz` and the catch-all 404 are unguarded: neither acts.
 */
export function createRouter({ base, access }: { base: string; access: RouteAccess }) {
  const ori = dialectGuard('ori', access);
  const intentic = dialectGuard('intentic', access);
  const intenticBytes = dialectGuard('intentic-bytes', access);
  // The media stream is authorised by its ticket alone (handlers/workspace/media.ts).
  const intenticTicketed = dialectGuard('intentic-bytes', access, { authorizesItself: true });
  const workspaceFiles = dialectGuard('workspace-files', access);

  return Router<IRequest, [WorkspaceContext], Response>({ base })
    .get('/healthz', health)
    // ori (docs/ori.md)
    .get('/api/files', ori(listFiles))
    .get('/api/files/search', ori(searchFiles))
    .get('/api/file', ori(readFile))
    .put('/api/file', ori(writeFile))
    .get('/api/raw', ori(rawFile))
    .head('/api/raw', ori(rawFile))
    .get('/api/skills', ori(listSkills))
    .get('/ws/terminal', ori(terminal))
    // NoIDE WebSocket JSON protocol (docs/noide-protocol.md; errors before the upgrade are HTTP `{ "error" }`)
    .get('/ws', ori(rpcSocket))
    // named terminals — ours, docs/terminals.md#named-terminals-over-http (`{ "error": message }`)
    .get('/terminals', ori(listTerminals))
    .post('/terminals', ori(createTerminal))
    .get('/terminals/:name', ori(attachTerminal))
    .delete('/terminals/:name', ori(removeTerminal))
    // Intentic — contract calls (docs/intentic.md; oRPC error bodies)
    .get('/workspace/tree', intentic(workspaceTree))
    .get('/workspace/children', intentic(workspaceChildren))
    .get('/workspace/file', intentic(workspaceFile))
    .get('/workspace/resolve', intentic(workspaceResolve))
    .get('/workspace/search', intentic(workspaceSearch))
    .get('/workspace/repos', intentic(workspaceRepos))
    .post('/workspace/repos', intentic(workspaceClone))
    .post('/workspace/sync', intentic(workspaceSync))
    .post('/workspace/dir', intentic(workspaceMakeDir))
    .delete('/workspace/entry', intentic(workspaceDeleteEntry))
    .post('/workspace/move', intentic(workspaceMove))
    .post('/workspace/copy', intentic(workspaceCopy))
    .post('/workspace/media-ticket', intentic(workspaceMediaTicket))
    .post('/workspace/agents', intentic(workspaceCreateAgent))
    .delete('/workspace/agents/:agent', intentic(workspaceDeleteAgent))
    // Intentic — its plain byte routes (`{ "error": message }`)
    .get('/workspace/raw', intenticBytes(workspaceRaw))
    .get('/workspace/media', intenticTicketed(workspaceMedia))
    .head('/workspace/media', intenticTicketed(workspaceMedia))
    .post('/workspace/upload', intenticBytes(workspaceUpload))
    // workspace-files (docs/workspace-files.md)
    .get('/workspace-files/stat', workspaceFiles(workspaceFilesStat))
    .get('/workspace-files/read', workspaceFiles(workspaceFilesRead))
    .get('/workspace-files/read-bytes', workspaceFiles(workspaceFilesReadBytes))
    .get('/workspace-files/list', workspaceFiles(workspaceFilesList))
    .get('/workspace-files/changes', workspaceFiles(workspaceFilesChanges))
    // Intentic — project jobs (docs/intentic-projects.md#jobs-and-their-terminals, core/jobs): installs, dev servers, test runs
    .post('/workspace/setup/install', intentic(workspaceInstall))
    .get('/workspace/repos/:repo/apps', intentic(workspaceApps))
    .post('/workspace/repos/:repo/apps/:app/start', intentic(workspaceStartApp))
    .post('/workspace/repos/:repo/apps/:app/stop', intentic(workspaceStopApp))
    .post('/workspace/repos/:repo/tests', intentic(workspaceRunTests))
    // Intentic — the project model (docs/intentic-projects.md, core/projects): setup, package graph, modules
    .get('/workspace/setup', intentic(workspaceSetup))
    .get('/workspace/repos/:repo/graph', intentic(workspaceGraph))
    .get('/workspace/modules', intentic(workspaceModules))
    // Intentic — health and classify (docs/intentic-projects.md#health, core/health, core/classify)
    .get('/workspace/health', intentic(workspaceHealth))
    .get('/workspace/classify', intentic(workspaceClassify))
    // Intentic — templates and add-apps (docs/intentic-projects.md#templates, core/projects/template-source.ts, core/jobs/add-apps.ts)
    .get('/workspace/templates', intentic(workspaceTemplates))
    .post('/workspace/repos/:repo/apps', intentic(workspaceAddApps))
    // Intentic — any other call under /workspace/ (after all of its routes above): an oRPC NOT_FOUND body
    .all('/workspace/*', intentic(workspaceUnknownCall))
    // everything else
    .all('*', () => jsonResponse({ error: 'not found' }, 404));
}
