/**
 * Every route and `/ws` command that takes a path, one row each: how to send it a hostile path, and the shape its
 * refusals must have. The fuzzer (./path-fuzz-run.ts) reads nothing else, so this table is its coverage; a reader
 * sees at a glance what is fuzzed, and `uncoveredPathRoutes()` fails a test when the route table or the `/ws`
 * command table gains a path-taking entry this table lacks.
 *
 * A row's `call` builds the request (or `/ws` frame) for one path; `variant` (a random number from the property)
 * decides the choices a row has, e.g. which of `from`/`to` gets the hostile path and which a plain one. `then`
 * makes a follow-up: the media stream with the ticket just minted, or the cleanup of a terminal that started.
 */
import { rpcCommands } from '../../../handlers/rpc/command-table.ts';
import { routeDocIndex } from '../../../runtime/openapi/route-docs.ts';
import { routeTable } from '../../../runtime/routes.ts';
import { buildZip, file } from '../zip-writer.ts';

/** The error shapes (docs/architecture.md#errors). */
export type RefusalShape = 'ori' | 'intentic' | 'intentic-bytes' | 'workspace-files' | 'ws';

export interface HttpCall {
  kind: 'http';
  method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';
  /** Path and query, relative to the app's base. */
  target: string;
  body?: string | Uint8Array;
  headers?: Record<string, string>;
  /** The refusal shape when it is not the row's (the ticket call before a media stream). */
  shape?: RefusalShape;
}

export interface WsCall {
  kind: 'ws';
  command: string;
  args: Record<string, unknown>;
  /** chat_stream answers in events: wait for this event (matched on payload.id = the chat id) before judging. */
  awaitEvent?: { event: string; id: string };
}

export type Call = HttpCall | WsCall;

/** What came back: the status (HTTP) or ok (ws), and the decoded JSON where there is one. */
export interface Answer {
  status: number;
  json: unknown;
}

export interface CallEnv {
  /** The agent whose private copy agent-aware rows address (the overlay backend); undefined: the shared tree. */
  agent: string | undefined;
  /** A name no other call uses (terminal names, fresh targets). */
  unique: string;
}

/** What a row needs beyond files; a backend without it skips the row (Workers: no pty, git, processes). */
export type Need = 'git' | 'pty' | 'jobs' | 'search' | 'chat' | 'ws';

export interface PathRoute {
  /** `METHOD /path` as in runtime/routes.ts (`{param}` for `:param`), or `ws <command>`. */
  route: string;
  shape: RefusalShape;
  /** The inputs that carry the hostile path (the coverage check compares these with the schemas' keys). */
  fields: readonly string[];
  /** Takes `agent` (an agent's private copy): the overlay backend sends it. */
  agentAware?: boolean;
  needs?: readonly Need[];
  /** Relative share of the paths: rows that start processes (git, shells) get fewer. */
  weight: number;
  call(path: string, env: CallEnv, variant: number): Call;
  then?(answer: Answer, path: string, env: CallEnv): Call | undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Builders

const json = (value: unknown) => JSON.stringify(value);
const JSON_HEADERS = { 'content-type': 'application/json' };

function query(params: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, value);
  return `?${search.toString()}`;
}

const get = (target: string): HttpCall => ({ kind: 'http', method: 'GET', target });
const withBody = (method: HttpCall['method'], target: string, body: unknown): HttpCall => ({ kind: 'http', method, target, body: json(body), headers: JSON_HEADERS });
const ws = (command: string, args: Record<string, unknown>): WsCall => ({ kind: 'ws', command, args });

/** A plain, fresh inside path for the field that does not get the hostile one. */
const freshTarget = (env: CallEnv) => `scratch/fresh-${env.unique}.txt`;
const PLAIN_SOURCE = 'scratch/src.txt';

/** `from`/`to`: one of them hostile (or both), chosen by the variant. */
function twoPaths(path: string, env: CallEnv, variant: number): { from: string; to: string } {
  switch (variant % 3) {
    case 0: return { from: path, to: freshTarget(env) };
    case 1: return { from: PLAIN_SOURCE, to: path };
    default: return { from: path, to: path };
  }
}

/** An ordinary zip of one file, for extract_zip's `destDir`. */
const ZIP_BASE64 = Buffer.from(buildZip([file('unzipped.txt', 'from a zip\n')])).toString('base64');

/** The row for a `/ws` git command: `path` hostile; `file`, where it takes one, hostile or plain by the variant. */
function git(command: string, extra: Record<string, unknown> = {}, takesFile = false): PathRoute {
  return {
    route: `ws ${command}`,
    shape: 'ws',
    fields: takesFile ? ['path', 'file'] : ['path'],
    needs: ['ws', 'git'],
    weight: 0.15,
    call: (path, _env, variant) => {
      if (!takesFile) return ws(command, { path, ...extra });
      return variant % 2 === 0 ? ws(command, { path, file: 'tracked.txt', ...extra }) : ws(command, { path: 'repo', file: path, ...extra });
    },
  };
}

/** A `/ws` file command taking one `path`. */
function wsPath(command: string, extra: Record<string, unknown> = {}, weight = 1): PathRoute {
  return { route: `ws ${command}`, shape: 'ws', fields: ['path'], needs: ['ws'], weight, call: (path) => ws(command, { path, ...extra }) };
}

/** `?path=` (and `agent=`) on a GET route. */
function getPath(route: string, shape: RefusalShape, extra: Record<string, string> = {}, agentAware = true): PathRoute {
  const [, pathname] = route.split(' ');
  return {
    route,
    shape,
    fields: ['path'],
    agentAware,
    weight: 1,
    call: (path, env) => get(pathname! + query({ path, ...extra, agent: agentAware ? env.agent : undefined })),
  };
}

/** A job call on `/workspace/repos/{repo}/…`: the repo id is one percent-encoded segment (handlers/workspace/job-paths.ts). */
function repoCall(route: string, method: HttpCall['method'], suffix: string, body?: unknown): PathRoute {
  return {
    route,
    shape: 'intentic',
    fields: ['repo'],
    needs: ['jobs'],
    weight: 0.3,
    call: (path) => {
      const target = `/workspace/repos/${encodeURIComponent(path)}${suffix}`;
      return body === undefined ? { kind: 'http', method, target } : withBody(method, target, body);
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The table

export const PATH_ROUTES: readonly PathRoute[] = [
  // ori (docs/ori.md): { "error" }
  getPath('GET /api/files', 'ori', {}, false),
  getPath('GET /api/file', 'ori', {}, false),
  { route: 'PUT /api/file', shape: 'ori', fields: ['path'], weight: 1, call: (path) => withBody('PUT', `/api/file${query({ path })}`, { content: 'fuzz\n' }) },
  getPath('GET /api/raw', 'ori', {}, false),
  { route: 'HEAD /api/raw', shape: 'ori', fields: ['path'], weight: 0.5, call: (path) => ({ kind: 'http', method: 'HEAD', target: `/api/raw${query({ path })}` }) },

  // named terminals (docs/terminals.md): { "error" }; a terminal that starts is deleted again
  {
    route: 'POST /terminals',
    shape: 'ori',
    fields: ['cwd'],
    needs: ['pty'],
    weight: 0.1,
    call: (path, env) => withBody('POST', '/terminals', { name: `fuzz-${env.unique}`, command: 'exit 0', cwd: path }),
    then: (answer, _path, env) => (answer.status === 201 ? { kind: 'http', method: 'DELETE', target: `/terminals/fuzz-${env.unique}` } : undefined),
  },

  // Intentic contract calls (docs/intentic.md): oRPC error bodies
  { route: 'GET /workspace/tree', shape: 'intentic', fields: ['agent'], weight: 0.2, call: (path) => get(`/workspace/tree${query({ agent: path })}`) },
  getPath('GET /workspace/children', 'intentic'),
  getPath('GET /workspace/file', 'intentic'),
  getPath('GET /workspace/resolve', 'intentic'),
  {
    route: 'GET /workspace/search',
    shape: 'intentic',
    fields: ['include'],
    needs: ['search'],
    weight: 0.3,
    call: (path, _env, variant) => get(`/workspace/search${query({ query: ['inside', 'secret', 'outside', 'FUZZ'][variant % 4]!, include: path, mode: variant % 2 ? 'find' : undefined })}`),
  },
  { route: 'POST /workspace/dir', shape: 'intentic', fields: ['path'], agentAware: true, weight: 1, call: (path, env) => withBody('POST', '/workspace/dir', { path, agent: env.agent }) },
  { route: 'DELETE /workspace/entry', shape: 'intentic', fields: ['path'], agentAware: true, weight: 1, call: (path, env) => withBody('DELETE', '/workspace/entry', { path, agent: env.agent }) },
  { route: 'POST /workspace/move', shape: 'intentic', fields: ['from', 'to'], agentAware: true, weight: 1, call: (path, env, v) => withBody('POST', '/workspace/move', { ...twoPaths(path, env, v), agent: env.agent }) },
  { route: 'POST /workspace/copy', shape: 'intentic', fields: ['from', 'to'], agentAware: true, weight: 1, call: (path, env, v) => withBody('POST', '/workspace/copy', { ...twoPaths(path, env, v), agent: env.agent }) },
  {
    route: 'POST /workspace/media-ticket',
    shape: 'intentic',
    fields: ['path'],
    agentAware: true,
    weight: 0.5,
    call: (path, env) => withBody('POST', '/workspace/media-ticket', { path, agent: env.agent }),
  },
  {
    route: 'POST /workspace/agents',
    shape: 'intentic',
    fields: ['agent'],
    weight: 0.1,
    call: (path) => withBody('POST', '/workspace/agents', { agent: path }),
    then: (answer, path) => (answer.status === 200 ? { kind: 'http', method: 'DELETE', target: `/workspace/agents/${encodeURIComponent(path)}` } : undefined),
  },
  { route: 'DELETE /workspace/agents/{agent}', shape: 'intentic', fields: ['agent'], weight: 0.2, call: (path) => ({ kind: 'http', method: 'DELETE', target: `/workspace/agents/${encodeURIComponent(path)}` }) },
  {
    route: 'POST /workspace/repos',
    shape: 'intentic',
    fields: ['name'],
    needs: ['git'],
    weight: 0.1,
    // A URL nothing listens on: a name that passes its checks costs one failing clone, never a download.
    call: (path) => withBody('POST', '/workspace/repos', { name: path, cloneUrl: 'http://127.0.0.1:9/none.git' }),
  },
  { route: 'GET /workspace/health', shape: 'intentic', fields: ['repo'], needs: ['search'], weight: 0.2, call: (path) => get(`/workspace/health${query({ repo: path })}`) },
  { route: 'POST /workspace/setup/install', shape: 'intentic', fields: ['dirs'], needs: ['jobs'], weight: 0.2, call: (path) => withBody('POST', '/workspace/setup/install', { dirs: [path] }) },
  repoCall('GET /workspace/repos/{repo}/apps', 'GET', '/apps'),
  repoCall('POST /workspace/repos/{repo}/apps/{app}/start', 'POST', '/apps/web/start'),
  repoCall('POST /workspace/repos/{repo}/apps/{app}/stop', 'POST', '/apps/web/stop'),
  repoCall('GET /workspace/repos/{repo}/graph', 'GET', '/graph'),
  repoCall('POST /workspace/repos/{repo}/apps', 'POST', '/apps', { apps: [{ template: 'none', name: 'web' }] }),
  {
    route: 'POST /workspace/repos/{repo}/tests',
    shape: 'intentic',
    fields: ['repo', 'dirs'],
    needs: ['jobs'],
    weight: 0.3,
    call: (path, env, variant) =>
      variant % 2 === 0
        ? withBody('POST', `/workspace/repos/${encodeURIComponent(path)}/tests`, { session: `fuzz-${env.unique}`, dirs: ['.'] })
        : withBody('POST', '/workspace/repos/repo/tests', { session: `fuzz-${env.unique}`, dirs: [path] }),
  },

  // Intentic byte routes (docs/intentic.md#byte-routes): { "error" }
  getPath('GET /workspace/raw', 'intentic-bytes'),
  {
    route: 'GET /workspace/media',
    shape: 'intentic-bytes',
    fields: ['path'],
    agentAware: true,
    weight: 0.5,
    // Mint a ticket for the path first; then stream with it (or, when minting failed, without one).
    call: (path, env) => ({ ...withBody('POST', '/workspace/media-ticket', { path, agent: env.agent }), shape: 'intentic' }),
    then: (answer, path, env) => get(`/workspace/media${query({ path, agent: env.agent, ticket: ticketOf(answer) })}`),
  },
  {
    route: 'HEAD /workspace/media',
    shape: 'intentic-bytes',
    fields: ['path'],
    agentAware: true,
    weight: 0.3,
    call: (path, env) => ({ ...withBody('POST', '/workspace/media-ticket', { path, agent: env.agent }), shape: 'intentic' }),
    then: (answer, path, env) => ({ kind: 'http', method: 'HEAD', target: `/workspace/media${query({ path, agent: env.agent, ticket: ticketOf(answer) })}` }),
  },
  {
    route: 'POST /workspace/upload',
    shape: 'intentic-bytes',
    fields: ['path'],
    agentAware: true,
    weight: 1,
    call: (path, env, variant) => ({
      kind: 'http',
      method: 'POST',
      target: `/workspace/upload${query({ path, agent: env.agent, offset: variant % 4 === 0 ? '1' : undefined })}`,
      body: new TextEncoder().encode('uploaded by the fuzzer\n'),
      headers: { 'content-type': 'application/octet-stream' },
    }),
  },

  // workspace-files (docs/workspace-files.md): { "error": { code, message, details } }
  getPath('GET /workspace-files/stat', 'workspace-files'),
  getPath('GET /workspace-files/read', 'workspace-files'),
  getPath('GET /workspace-files/read-bytes', 'workspace-files'),
  getPath('GET /workspace-files/list', 'workspace-files'),
  // The change feed takes no path, only `agent`: a hostile id must be refused, never open a stream of another folder.
  { route: 'GET /workspace-files/changes', shape: 'workspace-files', fields: ['agent'], weight: 0.2, call: (path) => get(`/workspace-files/changes${query({ agent: path })}`) },

  // The web panel's files: a name looked up in the built assets, never a file on disk.
  { route: 'GET /panel/{file}', shape: 'ori', fields: ['file'], weight: 0.2, call: (path) => get(`/panel/${path.split('/').map(encodeURIComponent).join('/')}`) },

  // /ws file commands (docs/noide-protocol.md#file-commands): { id, ok: false, error }
  wsPath('read_file'),
  wsPath('read_file_base64'),
  wsPath('download_file', {}, 0.5),
  wsPath('write_file', { content: 'fuzz\n' }),
  wsPath('upload_file', { content: Buffer.from('fuzz upload\n').toString('base64') }),
  wsPath('create_file', { content: 'fuzz\n' }),
  wsPath('create_directory'),
  wsPath('delete_entry'),
  wsPath('file_exists'),
  wsPath('read_directory', { maxDepth: 2 }),
  wsPath('list_files'),
  wsPath('search_in_files', { query: 'secret' }),
  { route: 'ws rename_entry', shape: 'ws', fields: ['from', 'to'], needs: ['ws'], weight: 1, call: (path, env, v) => ws('rename_entry', twoPaths(path, env, v)) },
  { route: 'ws copy_entry', shape: 'ws', fields: ['from', 'to'], needs: ['ws'], weight: 1, call: (path, env, v) => ws('copy_entry', twoPaths(path, env, v)) },
  { route: 'ws extract_zip', shape: 'ws', fields: ['destDir'], needs: ['ws'], weight: 0.5, call: (path) => ws('extract_zip', { zipContent: ZIP_BASE64, destDir: path }) },

  // /ws terminals and chat: `cwd`
  {
    route: 'ws pty_spawn',
    shape: 'ws',
    fields: ['cwd'],
    needs: ['ws', 'pty'],
    weight: 0.1,
    call: (path, env) => ws('pty_spawn', { sessionId: `fuzz-${env.unique}`, shell: '/bin/sh', cwd: path }),
    then: (answer, _path, env) => (answer.status < 400 ? ws('pty_kill', { sessionId: `fuzz-${env.unique}` }) : undefined),
  },
  {
    route: 'ws chat_stream',
    shape: 'ws',
    fields: ['cwd'],
    needs: ['ws', 'chat'],
    weight: 0.1,
    call: (path, env) => ({ ...ws('chat_stream', { command: 'kilo', args: ['run', 'hi'], cwd: path, requestId: `fuzz-${env.unique}` }), awaitEvent: { event: 'chat-stream-done', id: `fuzz-${env.unique}` } }),
  },

  // /ws git commands (docs/noide-protocol.md#git-commands): `path` the repo, `file` repo-relative
  git('get_git_status'),
  git('git_log'),
  git('git_stash_list'),
  git('git_init'),
  git('get_git_diff', {}, true),
  git('get_git_staged_diff', {}, true),
  git('get_git_head_file', {}, true),
  git('git_show_index', {}, true),
  git('git_add', {}, true),
  git('git_stage_all'),
  git('git_unstage', {}, true),
  git('git_unstage_all'),
  git('git_discard', {}, true),
  git('git_discard_all'),
  git('git_commit', { message: 'fuzz' }),
  git('git_undo_commit'),
  git('git_commit_diff', { commit: 'HEAD' }),
  git('git_revert', { commit: 'HEAD' }),
  git('git_stash'),
  git('git_stash_pop'),
  git('git_push'),
  git('git_fetch'),
  git('git_pull'),
  git('git_branch_list'),
  git('git_checkout_branch', { name: 'main' }),
  git('git_merge', { fromRef: 'main' }),
  git('git_merge_abort'),
  git('git_resolve_conflict', { side: 'ours' }, true),
];

function ticketOf(answer: Answer): string | undefined {
  const ticket = (answer.json as { ticket?: unknown } | null)?.ticket;
  return answer.status === 200 && typeof ticket === 'string' ? ticket : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Refusal shapes

const ORPC_CODES: Readonly<Record<number, string>> = {
  400: 'BAD_REQUEST', 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 409: 'CONFLICT', 412: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE', 416: 'RANGE_NOT_SATISFIABLE', 429: 'TOO_MANY_REQUESTS', 501: 'NOT_IMPLEMENTED',
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const keysAre = (value: Record<string, unknown>, allowed: string[], required: string[]) =>
  Object.keys(value).every((key) => allowed.includes(key)) && required.every((key) => Object.hasOwn(value, key));

/**
 * Why a refusal's body is not in its dialect's shape, or undefined when it is. `body` is the parsed JSON (undefined
 * when it was not JSON); for `ws` it is the whole reply frame.
 */
export function refusalShapeProblem(shape: RefusalShape, status: number, body: unknown): string | undefined {
  switch (shape) {
    case 'ori':
    case 'intentic-bytes':
      return isObject(body) && keysAre(body, ['error'], ['error']) && typeof body.error === 'string' && body.error !== '' ? undefined : 'not { "error": message }';
    case 'intentic': {
      if (!isObject(body) || !keysAre(body, ['defined', 'code', 'status', 'message', 'data'], ['defined', 'code', 'status', 'message'])) return 'not an oRPC error body';
      if (body.defined !== false || body.status !== status || typeof body.message !== 'string') return 'oRPC body fields disagree with the answer';
      const code = ORPC_CODES[status];
      if (code !== undefined && body.code !== code) return `oRPC code ${String(body.code)} for status ${status}`;
      if (body.data !== undefined && !(isObject(body.data) && Array.isArray(body.data.issues))) return 'oRPC data is not { issues }';
      return undefined;
    }
    case 'workspace-files': {
      if (!isObject(body) || !keysAre(body, ['error'], ['error']) || !isObject(body.error)) return 'not { "error": { code, message, details } }';
      const error = body.error;
      if (!keysAre(error, ['code', 'message', 'details'], ['code', 'message', 'details'])) return 'workspace-files error keys';
      if (typeof error.code !== 'string' || !/^(workspace-file|gateway)\/[a-z-]+$/.test(error.code) || typeof error.message !== 'string' || !isObject(error.details)) {
        return 'workspace-files error fields';
      }
      return undefined;
    }
    case 'ws':
      return isObject(body) && body.ok === false && typeof body.error === 'string' && body.error !== '' && 'id' in body ? undefined : 'not { id, ok: false, error }';
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Coverage

/** Inputs that name a file, folder or repo, or an agent's copy (the agent id becomes a folder name). */
export const HTTP_PATH_KEYS = ['path', 'from', 'to', 'cwd', 'dirs', 'repo', 'include', 'file', 'agent'] as const;
export const WS_PATH_KEYS = ['path', 'from', 'to', 'cwd', 'destDir', 'file'] as const;

/** Inputs named like a path that are not one, with the reason. */
export const NOT_PATHS: Readonly<Record<string, string>> = {
  'GET /terminals/{name}: from': 'a byte offset into the terminal output',
  'ws pty_attach: from': 'a byte offset into the terminal output',
};

/**
 * Every routed method and path whose inputs (params, query or body, from the route docs the handlers export their
 * schemas to) include a path-like key that no row of PATH_ROUTES fuzzes, and every `/ws` command likewise. Empty
 * when the table is complete.
 */
export function uncoveredPathRoutes(): string[] {
  const rows = new Map(PATH_ROUTES.map((row) => [row.route, row]));
  const missing: string[] = [];
  for (const { method, path } of routeTable) {
    const key = `${method} ${path.replace(/:([A-Za-z]+)\+?/g, '{$1}')}`;
    const doc = routeDocIndex[key];
    const inputs = new Set([...shapeKeys(doc?.params), ...shapeKeys(doc?.query), ...shapeKeys(doc?.body)]);
    const pathKeys = HTTP_PATH_KEYS.filter((name) => inputs.has(name));
    const row = rows.get(key);
    for (const name of pathKeys) {
      if (row?.fields.includes(name)) continue;
      // `agent` is one rule on every route (handlers/shared/agent-field.ts): an agent-aware row sends a real one
      // (the overlay backend), and the tree, change feed and agents rows fuzz the id itself.
      if (name === 'agent' && row?.agentAware) continue;
      if (`${key}: ${name}` in NOT_PATHS) continue;
      missing.push(`${key}: ${name}`);
    }
  }
  for (const [name, command] of rpcCommands) {
    const keys = Object.keys(command.args ?? {}).filter((arg) => (WS_PATH_KEYS as readonly string[]).includes(arg));
    const row = rows.get(`ws ${name}`);
    for (const arg of keys) if (!row?.fields.includes(arg) && !(`ws ${name}: ${arg}` in NOT_PATHS)) missing.push(`ws ${name}: ${arg}`);
  }
  return missing;
}

function shapeKeys(schema: unknown): string[] {
  const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}
