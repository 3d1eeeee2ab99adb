import { z } from 'zod';
import { listFilesQuery } from '../../handlers/api/list-files.ts';
import { rawFileQuery } from '../../handlers/api/raw-file.ts';
import { readFileQuery } from '../../handlers/api/read-file.ts';
import { searchFilesQuery } from '../../handlers/api/search-files.ts';
import { writeFileBody, writeFileQuery } from '../../handlers/api/write-file.ts';
import { capabilitiesAnswer } from '../../handlers/capabilities.ts';
import { panelAssetParams } from '../../handlers/panel/serve-panel.ts';
import { attachQuery } from '../../handlers/terminals/attach.ts';
import { createTerminalBody } from '../../handlers/terminals/create.ts';
import { terminalNameParams } from '../../handlers/terminals/terminal-input.ts';
import { changesQuery } from '../../handlers/workspace-files/changes.ts';
import { pathQuery } from '../../handlers/workspace-files/gates.ts';
import { readBytesQuery } from '../../handlers/workspace-files/read-bytes.ts';
import { readQuery } from '../../handlers/workspace-files/read.ts';
import { addAppsBody } from '../../handlers/workspace/add-apps.ts';
import { createAgentBody, deleteAgentParams } from '../../handlers/workspace/agents.ts';
import { childrenQuery } from '../../handlers/workspace/children.ts';
import { classifyQuery } from '../../handlers/workspace/classify.ts';
import { cloneBody } from '../../handlers/workspace/clone.ts';
import { copyBody } from '../../handlers/workspace/copy.ts';
import { makeDirBody } from '../../handlers/workspace/dir.ts';
import { deleteEntryBody } from '../../handlers/workspace/entry.ts';
import { fileQuery } from '../../handlers/workspace/file.ts';
import { graphParams, graphQuery } from '../../handlers/workspace/graph.ts';
import { healthQuery } from '../../handlers/workspace/health.ts';
import { installBody } from '../../handlers/workspace/install.ts';
import { mediaTicketBody } from '../../handlers/workspace/media-ticket.ts';
import { mediaQuery } from '../../handlers/workspace/media.ts';
import { modulesQuery } from '../../handlers/workspace/modules.ts';
import { moveBody } from '../../handlers/workspace/move.ts';
import { rawQuery } from '../../handlers/workspace/raw.ts';
import { reposQuery } from '../../handlers/workspace/repos.ts';
import { resolveQuery } from '../../handlers/workspace/resolve.ts';
import { searchQuery } from '../../handlers/workspace/search.ts';
import { setupQuery } from '../../handlers/workspace/setup.ts';
import { syncBody } from '../../handlers/workspace/sync.ts';
import { templatesQuery } from '../../handlers/workspace/templates.ts';
import { testsBody } from '../../handlers/workspace/tests.ts';
import { treeQuery } from '../../handlers/workspace/tree.ts';
import { uploadQuery } from '../../handlers/workspace/upload.ts';
import { defaultLimits } from '../context.ts';
import type { HeaderDoc, ResponseDoc, RouteDoc } from './route-doc.ts';
import * as intentic from './responses/intentic.ts';
import * as projects from './responses/intentic-projects.ts';
import * as ori from './responses/ori.ts';
import * as terminals from './responses/terminals.ts';
import * as workspaceFiles from './responses/workspace-files.ts';

/** A 200 JSON answer; the schema's own type is kept (the typed client reads it: client/http-client.ts). */
const json = <S extends z.ZodType>(schema: S, description = 'success') => ({ 200: { description, json: schema } });

/** A file's bytes as they are, with Go's ServeContent semantics (runtime/http): ranges and validators. */
const servedBytes: Record<number, ResponseDoc> = {
  200: { description: "the file's bytes, with its content type", content: { mediaType: '*/*', schema: { type: 'string', contentMediaType: 'application/octet-stream' } }, headers: { ETag: 'the file version', 'Last-Modified': 'the modification time', 'Accept-Ranges': 'bytes' } },
  206: { description: 'the byte range asked with `Range`', content: { mediaType: '*/*', schema: { type: 'string', contentMediaType: 'application/octet-stream' } }, headers: { 'Content-Range': 'the range sent' } },
  304: { description: 'not modified (`If-None-Match`, `If-Modified-Since`)' },
};
const servedHeaders: HeaderDoc[] = [
  { name: 'Range', description: 'one byte range (`bytes=0-99`); several are answered as the whole file' },
  { name: 'If-None-Match', description: 'an entity tag the client holds: 304 if it is still current' },
];
/** The bodiless HEAD answers of a served file: the GET's headers, no body. */
const servedHead: Record<number, ResponseDoc> = { 200: { description: "the GET's headers without its body" }, 304: servedBytes[304]! };

/** A WebSocket upgrade route: 101, or 426 for a plain GET. */
const upgrade = (what: string, docs: string): Record<number, ResponseDoc> => ({
  101: { description: `switching to a WebSocket: ${what} (${docs})` },
  426: { description: 'a request without a WebSocket upgrade', json: ori.plainErrorBody },
});

/** An HTML page of the panel (docs/panel.md). */
const page = (what: string): ResponseDoc => ({ description: what, content: { mediaType: 'text/html', schema: { type: 'string' } } });
const notModified: ResponseDoc = { description: 'not modified (`If-None-Match`)' };

const etag = { ETag: 'the file version, for a later `If-Match`' };

/**
 * One entry per route of runtime/routes.ts, keyed `METHOD /path` with `{param}` path parameters. Not annotated
 * but checked (`satisfies`): each entry keeps its schemas' own types for the typed client.
 */
export const routeDocs = {
  'GET /healthz': { summary: 'liveness; needs no token', docs: 'docs/architecture.md#common-endpoints', responses: json(ori.healthAnswer) },
  'GET /openapi.json': {
    summary: 'this document: OpenAPI 3.1 for every HTTP route; needs no token',
    docs: 'docs/architecture.md#openapi',
    responses: { 200: { description: 'the OpenAPI document', content: { mediaType: 'application/json', schema: { type: 'object' } } } },
  },
  'GET /ws/protocol.json': {
    summary: "the /ws protocol's JSON Schema document: frames, every command's arguments and result, events; needs no token",
    docs: 'docs/noide-protocol.md#the-protocol-document',
    responses: { 200: { description: 'the protocol document', content: { mediaType: 'application/json', schema: { type: 'object' } } } },
  },
  'GET /capabilities': {
    summary: 'what this runtime can do: WebSockets, terminals, commands, git, chat, watching',
    docs: 'docs/architecture.md#capabilities',
    responses: json(capabilitiesAnswer),
  },
  'GET /': {
    summary: 'the web panel (an HTML page; it asks for the token itself); needs no token',
    docs: 'docs/panel.md',
    responses: { 200: page('the panel'), 308: { description: 'the same URL with a trailing slash (the page names its files relative to it)' }, 304: notModified },
    errors: [503],
  },
  'GET /panel/{file}': {
    summary: "one of the panel's files (content-hashed scripts and styles); needs no token",
    docs: 'docs/panel.md#assets',
    params: panelAssetParams,
    responses: {
      200: { description: 'the file, cached for good when its name carries a hash', content: { mediaType: '*/*', schema: { type: 'string' } }, headers: { ETag: 'the content hash' } },
      304: notModified,
    },
    errors: [503],
  },
  'GET /docs': {
    summary: 'this API reference, rendered (RapiDoc, served offline); needs no token',
    docs: 'docs/panel.md#api-reference',
    responses: { 200: page('the reference page'), 304: notModified },
    errors: [503],
  },

  // ori (docs/ori.md)
  'GET /api/files': { summary: "one folder's entries, folders first", docs: 'docs/ori.md#list', query: listFilesQuery, responses: json(ori.listFilesAnswer) },
  'GET /api/files/search': { summary: 'files whose path contains `q`, ranked', docs: 'docs/ori.md#search', query: searchFilesQuery, responses: json(ori.searchFilesAnswer) },
  'GET /api/file': {
    summary: 'a UTF-8 text file',
    docs: 'docs/ori.md#read',
    query: readFileQuery,
    responses: { 200: { description: 'the text', json: ori.readFileAnswer, headers: etag } },
    errors: [413, 415],
  },
  'PUT /api/file': {
    summary: 'write a text file atomically (parents created); conditional with If-Match / If-None-Match',
    docs: 'docs/ori.md#write',
    query: writeFileQuery,
    body: writeFileBody,
    headers: [
      { name: 'If-Match', description: 'write only if the file still has this entity tag (`*`: if it exists)' },
      { name: 'If-None-Match', description: '`*`: create only' },
    ],
    responses: { 200: { description: 'saved', json: ori.writeFileAnswer, headers: etag } },
    errors: [409, 412, 413],
  },
  'GET /api/raw': { summary: "a file's bytes as they are", docs: 'docs/ori.md#raw', query: rawFileQuery, headers: servedHeaders, responses: servedBytes, errors: [412, 416] },
  'HEAD /api/raw': { summary: "a file's headers", docs: 'docs/ori.md#raw', query: rawFileQuery, headers: servedHeaders, responses: servedHead, errors: [412, 416] },
  'GET /api/skills': { summary: 'Claude Code skills of the project and the user', docs: 'docs/ori.md#skills', responses: json(ori.skillsAnswer) },
  'GET /ws/terminal': { summary: 'a shell over a WebSocket (an unnamed terminal)', docs: 'docs/ori.md#terminal', responses: upgrade('a shell in the workspace root', 'docs/ori.md#terminal'), errors: [501] },
  'GET /ws': { summary: 'the NoIDE WebSocket JSON protocol', docs: 'docs/noide-protocol.md#connecting', responses: upgrade('the NoIDE JSON protocol', 'docs/noide-protocol.md'), errors: [] },

  // named terminals (docs/terminals.md#named-terminals-over-http)
  'GET /terminals': { summary: 'the named terminals', docs: 'docs/terminals.md#named-terminals-over-http', responses: json(terminals.terminalListAnswer), errors: [501] },
  'POST /terminals': {
    summary: 'start a named terminal',
    docs: 'docs/terminals.md#named-terminals-over-http',
    body: createTerminalBody,
    responses: { 201: { description: 'started', json: terminals.terminalInfo } },
    errors: [409, 413, 429, 501],
  },
  'GET /terminals/{name}': {
    summary: "a named terminal's state, or (with a WebSocket upgrade) attach to it from byte `from`",
    docs: 'docs/terminals.md#named-terminals-over-http',
    params: terminalNameParams,
    query: attachQuery,
    responses: { 200: { description: 'the terminal (no upgrade asked)', json: terminals.terminalInfo }, ...upgrade('the terminal socket', 'docs/terminals.md') },
    errors: [501],
  },
  'DELETE /terminals/{name}': {
    summary: 'kill and forget a named terminal',
    docs: 'docs/terminals.md#named-terminals-over-http',
    params: terminalNameParams,
    responses: json(terminals.okAnswer),
    errors: [501],
  },

  // Intentic contract calls (docs/intentic.md)
  'GET /workspace/tree': { summary: 'the workspace as one budgeted walk', docs: 'docs/intentic.md#tree', query: treeQuery, responses: json(intentic.treeAnswer) },
  'GET /workspace/children': { summary: "one folder's entries", docs: 'docs/intentic.md#children', query: childrenQuery, responses: json(intentic.childrenAnswer) },
  'GET /workspace/file': {
    summary: 'a window of a text file, cut to whole lines',
    docs: 'docs/intentic.md#file',
    query: fileQuery,
    responses: { 200: { description: 'the window, or `{present: false}` for a missing file', json: intentic.fileAnswer, headers: etag } },
    errors: [415],
  },
  'GET /workspace/resolve': { summary: 'the file a path written in prose means', docs: 'docs/intentic.md#resolve', query: resolveQuery, responses: json(intentic.resolveAnswer) },
  'GET /workspace/search': { summary: 'ranked, grouped search hits', docs: 'docs/intentic-search.md', query: searchQuery, responses: json(intentic.searchAnswer), errors: [501] },
  'GET /workspace/repos': { summary: 'the git repositories in the workspace', docs: 'docs/intentic.md#repos', query: reposQuery, responses: json(intentic.reposAnswer), errors: [501] },
  'POST /workspace/repos': { summary: 'clone a repository', docs: 'docs/intentic.md#clone', body: cloneBody, responses: json(intentic.cloneAnswer), errors: [409, 413, 501] },
  'POST /workspace/sync': { summary: 'fast-forward every clean repository', docs: 'docs/intentic.md#sync', body: syncBody, responses: json(intentic.syncAnswer), errors: [413, 501] },
  'POST /workspace/dir': { summary: 'make a folder (and its parents)', docs: 'docs/intentic.md#mutations', body: makeDirBody, responses: json(intentic.okAnswer), errors: [409, 413] },
  'DELETE /workspace/entry': { summary: 'remove a file or folder', docs: 'docs/intentic.md#mutations', body: deleteEntryBody, responses: json(intentic.okAnswer), errors: [409, 413] },
  'POST /workspace/move': { summary: 'move or rename', docs: 'docs/intentic.md#mutations', body: moveBody, responses: json(intentic.okAnswer), errors: [409, 413] },
  'POST /workspace/copy': { summary: 'copy a file or folder', docs: 'docs/intentic.md#mutations', body: copyBody, responses: json(intentic.okAnswer), errors: [409, 413] },
  'POST /workspace/media-ticket': { summary: 'a ticket for `GET /workspace/media` of one file', docs: 'docs/intentic.md#media', body: mediaTicketBody, responses: json(intentic.mediaTicketAnswer), errors: [409, 413] },
  'POST /workspace/agents': { summary: "create an agent's private copy", docs: 'docs/intentic.md#agents', body: createAgentBody, responses: json(intentic.okAnswer), errors: [409, 413, 501] },
  'DELETE /workspace/agents/{agent}': { summary: "remove an agent's private copy", docs: 'docs/intentic.md#agents', params: deleteAgentParams, responses: json(intentic.okAnswer), errors: [409] },

  // Intentic byte routes (docs/intentic.md#byte-routes)
  'GET /workspace/raw': { summary: "a file's bytes (capped)", docs: 'docs/intentic.md#byte-routes', query: rawQuery, headers: servedHeaders, responses: servedBytes, errors: [409, 412, 413, 416] },
  'GET /workspace/media': {
    summary: "a file's bytes for `<img>` / `<video>`, authorised by its media ticket (no token)",
    docs: 'docs/intentic.md#media',
    query: mediaQuery,
    headers: servedHeaders,
    responses: servedBytes,
    errors: [409, 412, 416],
  },
  'HEAD /workspace/media': { summary: "a media file's headers, authorised by its ticket", docs: 'docs/intentic.md#media', query: mediaQuery, headers: servedHeaders, responses: servedHead, errors: [409, 412, 416] },
  'POST /workspace/upload': {
    summary: 'write a file from the raw request body (streamed, atomic); `offset` appends a part',
    docs: 'docs/intentic.md#byte-routes',
    query: uploadQuery,
    rawBody: { mediaType: 'application/octet-stream', description: "the file's bytes (or the part at `offset`)" },
    headers: [{ name: 'x-intentic-base-hash', description: 'SHA-256 (hex) of the file as the client read it: 409 if it changed' }],
    responses: { 200: { description: 'written', json: intentic.okAnswer, headers: etag } },
    errors: [409, 413],
  },

  // workspace-files (docs/workspace-files.md)
  'GET /workspace-files/stat': { summary: "a file's version and size", docs: 'docs/workspace-files.md#stat', query: pathQuery, responses: json(workspaceFiles.statAnswer), errors: [409] },
  'GET /workspace-files/read': { summary: 'a page of lines', docs: 'docs/workspace-files.md#read', query: readQuery(defaultLimits.pageMaxLines), responses: json(workspaceFiles.readAnswer), errors: [409, 413, 415] },
  'GET /workspace-files/read-bytes': { summary: 'a byte window, base64', docs: 'docs/workspace-files.md#read-bytes', query: readBytesQuery(defaultLimits.pageMaxBytes), responses: json(workspaceFiles.readBytesAnswer), errors: [409, 413] },
  'GET /workspace-files/list': { summary: "a folder's entries", docs: 'docs/workspace-files.md#list', query: pathQuery, responses: json(workspaceFiles.listAnswer), errors: [409] },
  'GET /workspace-files/changes': {
    summary: 'the change feed as server-sent events',
    docs: 'docs/workspace-files.md#changes',
    query: changesQuery,
    responses: { 200: { description: 'an endless event stream of changed paths (docs/workspace-files.md#changes)', content: { mediaType: 'text/event-stream', schema: { type: 'string' } } } },
  },

  // Intentic project calls (docs/intentic-projects.md)
  'POST /workspace/setup/install': { summary: 'queue installs', docs: 'docs/intentic-projects.md#install', body: installBody, responses: json(projects.installAnswer), errors: [409, 413, 501] },
  'GET /workspace/repos/{repo}/apps': { summary: "a repository's apps and their dev servers", docs: 'docs/intentic-projects.md#apps', params: graphParams, responses: json(projects.appsAnswer), errors: [501] },
  'POST /workspace/repos/{repo}/apps/{app}/start': { summary: "start an app's dev server", docs: 'docs/intentic-projects.md#start-and-stop', params: appParams(), responses: json(intentic.okAnswer), errors: [409, 501] },
  'POST /workspace/repos/{repo}/apps/{app}/stop': { summary: "stop an app's dev server", docs: 'docs/intentic-projects.md#start-and-stop', params: appParams(), responses: json(intentic.okAnswer), errors: [409, 501] },
  'POST /workspace/repos/{repo}/tests': { summary: 'run tests in a terminal session', docs: 'docs/intentic-projects.md#tests', params: graphParams, body: testsBody, responses: json(intentic.okAnswer), errors: [409, 413, 501] },
  'GET /workspace/setup': { summary: 'the projects and what setting them up takes', docs: 'docs/intentic-projects.md#setup', query: setupQuery, responses: json(projects.setupAnswer), errors: [501] },
  'GET /workspace/repos/{repo}/graph': { summary: "a repository's package graph", docs: 'docs/intentic-projects.md#graph', params: graphParams, query: graphQuery, responses: json(projects.graphAnswer), errors: [501] },
  'GET /workspace/modules': { summary: "every repository's modules", docs: 'docs/intentic-projects.md#modules', query: modulesQuery, responses: json(projects.modulesAnswer), errors: [501] },
  'GET /workspace/health': { summary: "a repository's hotspots and totals", docs: 'docs/intentic-projects.md#health', query: healthQuery, responses: json(projects.healthReportAnswer), errors: [501] },
  'GET /workspace/classify': { summary: 'top-level folders and files by kind', docs: 'docs/intentic-projects.md#classify', query: classifyQuery, responses: json(projects.classifyAnswer), errors: [501] },
  'GET /workspace/templates': { summary: 'the app templates', docs: 'docs/intentic-projects.md#templates', query: templatesQuery, responses: json(projects.templatesAnswer), errors: [501] },
  'POST /workspace/repos/{repo}/apps': { summary: 'add apps from templates', docs: 'docs/intentic-projects.md#add-apps', params: graphParams, body: addAppsBody, responses: json(intentic.okAnswer), errors: [409, 413, 501] },
} satisfies Record<string, RouteDoc>;

/** The same entries by any string key (the document builder and the tests look routes up by key). */
export const routeDocIndex: Readonly<Record<string, RouteDoc>> = routeDocs;

/**
 * `{repo}` and `{app}`: the handlers take them from the path as they are (handlers/workspace/job-paths.ts), with no
 * schema of their own, so the document says what the path can hold.
 */
function appParams(): z.ZodObject {
  return z.object({ repo: z.string().min(1), app: z.string().min(1) });
}
