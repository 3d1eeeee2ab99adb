import { Router, type IRequest } from 'itty-router';
import { listFiles } from '../handlers/api/list-files.ts';
import { rawFile } from '../handlers/api/raw-file.ts';
import { readFile } from '../handlers/api/read-file.ts';
import { searchFiles } from '../handlers/api/search-files.ts';
import { listSkills } from '../handlers/api/skills.ts';
import { terminal } from '../handlers/api/terminal.ts';
import { writeFile } from '../handlers/api/write-file.ts';
import { health } from '../handlers/health.ts';
import { rpcSocket } from '../handlers/rpc/ws.ts';
import { attachTerminal } from '../handlers/terminals/attach.ts';
import { createTerminal } from '../handlers/terminals/create.ts';
import { listTerminals } from '../handlers/terminals/list.ts';
import { removeTerminal } from '../handlers/terminals/remove.ts';
import { workspaceCreateAgent, workspaceDeleteAgent } from '../handlers/workspace/agents.ts';
import { workspaceChildren } from '../handlers/workspace/children.ts';
import { workspaceCopy } from '../handlers/workspace/copy.ts';
import { workspaceMakeDir } from '../handlers/workspace/dir.ts';
import { workspaceDeleteEntry } from '../handlers/workspace/entry.ts';
import { workspaceFile } from '../handlers/workspace/file.ts';
import { workspaceMediaTicket } from '../handlers/workspace/media-ticket.ts';
import { workspaceMedia } from '../handlers/workspace/media.ts';
import { workspaceMove } from '../handlers/workspace/move.ts';
import { workspaceRaw } from '../handlers/workspace/raw.ts';
import { workspaceRepos } from '../handlers/workspace/repos.ts';
import { workspaceClone } from '../handlers/workspace/clone.ts';
import { workspaceSync } from '../handlers/workspace/sync.ts';
import { workspaceResolve } from '../handlers/workspace/resolve.ts';
import { workspaceSearch } from '../handlers/workspace/search.ts';
import { workspaceTree } from '../handlers/workspace/tree.ts';
import { workspaceUpload } from '../handlers/workspace/upload.ts';
import { workspaceUnknownCall } from '../handlers/workspace/unknown-call.ts';
import { workspaceHealth } from '../handlers/workspace/health.ts';
import { workspaceClassify } from '../handlers/workspace/classify.ts';
import { workspaceTemplates } from '../handlers/workspace/templates.ts';
import { workspaceAddApps } from '../handlers/workspace/add-apps.ts';
import { workspaceFilesChanges } from '../handlers/workspace-files/changes.ts';
import { workspaceFilesList } from '../handlers/workspace-files/list.ts';
import { workspaceFilesReadBytes } from '../handlers/workspace-files/read-bytes.ts';
import { workspaceFilesRead } from '../handlers/workspace-files/read.ts';
import { workspaceFilesStat } from '../handlers/workspace-files/stat.ts';
import { workspaceInstall } from '../handlers/workspace/install.ts';
import { workspaceApps, workspaceStartApp, workspaceStopApp } from '../handlers/workspace/apps.ts';
import { workspaceRunTests } from '../handlers/workspace/tests.ts';
import { workspaceSetup } from '../handlers/workspace/setup.ts';
import { workspaceGraph } from '../handlers/workspace/graph.ts';
import { workspaceModules } from '../handlers/workspace/modules.ts';
import type { AuthConfig } from './auth.ts';
import type { WorkspaceContext } from './context.ts';
import { dialectGuard } from './dialect.ts';
import { jsonResponse } from './errors/render.ts';

/** The route table: every endpoint is a standalone fetch handler; the guard adds auth and error shape. */
export function createRouter({ base, auth }: { base: string; auth: AuthConfig }) {
  const ori = dialectGuard('ori', auth);
  const intentic = dialectGuard('intentic', auth);
  const intenticBytes = dialectGuard('intentic-bytes', auth);
  // The media stream is authorised by its ticket alone (handlers/workspace/media.ts).
  const intenticTicketed = dialectGuard('intentic-bytes', auth, { authorizesItself: true });
  const workspaceFiles = dialectGuard('workspace-files', auth);

  return Router<IRequest, [WorkspaceContext], Response>({ base })
    .get('/healthz', health)
    // ori — seed 000
    .get('/api/files', ori(listFiles))
    .get('/api/files/search', ori(searchFiles))
    .get('/api/file', ori(readFile))
    .put('/api/file', ori(writeFile))
    .get('/api/raw', ori(rawFile))
    .head('/api/raw', ori(rawFile))
    .get('/api/skills', ori(listSkills))
    .get('/ws/terminal', ori(terminal))
    // NoIDE WebSocket JSON protocol — seed 002 (errors before the upgrade are HTTP `{ "error" }`)
    .get('/ws', ori(rpcSocket))
    // named terminals — ours, seeds/README.md §002 (`{ "error": message }`)
    .get('/terminals', ori(listTerminals))
    .post('/terminals', ori(createTerminal))
    .get('/terminals/:name', ori(attachTerminal))
    .delete('/terminals/:name', ori(removeTerminal))
    // Intentic — seed 001: contract calls (oRPC error bodies)
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
    // workspace-files — seed 003
    .get('/workspace-files/stat', workspaceFiles(workspaceFilesStat))
    .get('/workspace-files/read', workspaceFiles(workspaceFilesRead))
    .get('/workspace-files/read-bytes', workspaceFiles(workspaceFilesReadBytes))
    .get('/workspace-files/list', workspaceFiles(workspaceFilesList))
    .get('/workspace-files/changes', workspaceFiles(workspaceFilesChanges))
    // Intentic — seed 001 project jobs (issue 9 "jobs": core/jobs): installs, dev servers, test runs
    .post('/workspace/setup/install', intentic(workspaceInstall))
    .get('/workspace/repos/:repo/apps', intentic(workspaceApps))
    .post('/workspace/repos/:repo/apps/:app/start', intentic(workspaceStartApp))
    .post('/workspace/repos/:repo/apps/:app/stop', intentic(workspaceStopApp))
    .post('/workspace/repos/:repo/tests', intentic(workspaceRunTests))
    // Intentic — seed 001 project model (issue 9 "model": core/projects): setup, package graph, modules
    .get('/workspace/setup', intentic(workspaceSetup))
    .get('/workspace/repos/:repo/graph', intentic(workspaceGraph))
    .get('/workspace/modules', intentic(workspaceModules))
    // Intentic — seed 001 health and classify (issue 9 "health": core/health, core/classify)
    .get('/workspace/health', intentic(workspaceHealth))
    .get('/workspace/classify', intentic(workspaceClassify))
    // Intentic — seed 001 templates and add-apps (issue 9 "templates": core/projects/template-source.ts, core/jobs/add-apps.ts)
    .get('/workspace/templates', intentic(workspaceTemplates))
    .post('/workspace/repos/:repo/apps', intentic(workspaceAddApps))
    // Intentic — any other call under /workspace/ (after all of its routes above): an oRPC NOT_FOUND body
    .all('/workspace/*', intentic(workspaceUnknownCall))
    // everything else
    .all('*', () => jsonResponse({ error: 'not found' }, 404));
}
