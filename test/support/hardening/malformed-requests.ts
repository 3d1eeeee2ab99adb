/**
 * Malformed requests for every HTTP route and every `/ws` command, as fast-check arbitraries, from two tables:
 *
 * - FUZZ_ROUTES: one row per row of the route table (runtime/routes.ts), naming whether the route may run on what
 *   the fuzzer sends (`inert`) or must only ever get input its own schema refuses (`refused`: it would start a
 *   shell, a clone, an install, or copy the workspace into itself until the disk is full);
 * - FUZZ_COMMANDS: the same for every row of the `/ws` command table (handlers/rpc/command-table.ts).
 *
 * Both are checked against the tables they mirror (test/hardening/malformed.test.ts): a new route or command without
 * a row fails the suite, so nothing new goes unfuzzed. The inputs each route and command parses — query keys, body
 * keys, path parameters, argument names — are read from the product's own zod schemas (runtime/openapi/route-docs.ts,
 * each command row's `args`), so they follow the handlers as they change.
 */
import fc from 'fast-check';
import type { z } from 'zod';
import { rpcCommands } from '../../../handlers/rpc/command-table.ts';
import { routeDocIndex } from '../../../runtime/openapi/route-docs.ts';
import { routeTable, type RouteAccessKind, type RouteRow } from '../../../runtime/routes.ts';
import {
  BAD_CONTENT_TYPES,
  BAD_DATES,
  BAD_ENTITY_TAGS,
  BAD_RANGES,
  BROKEN_JSON_TEXTS,
  HOSTILE_NUMBER_TEXTS,
  HOSTILE_NUMBERS,
  HOSTILE_STRINGS,
  INVALID_UTF8,
  anyString,
  headerSafeString,
  hostileJsonValue,
  hostileString,
  nestedJson,
  nestedJsonText,
  withInvalidUtf8,
} from './malformed-values.ts';

/** `inert`: any input may run. `refused`: only input the route's (or command's) own schema refuses is sent. */
export type FuzzGuard = 'inert' | 'refused';

/** Every route of runtime/routes.ts, keyed as `METHOD /path` in the table's own syntax. */
export const FUZZ_ROUTES: Readonly<Record<string, FuzzGuard>> = {
  'GET /healthz': 'inert',
  'GET /openapi.json': 'inert',
  'GET /ws/protocol.json': 'inert',
  'GET /': 'inert',
  'GET /panel/:file+': 'inert',
  'GET /docs': 'inert',
  'GET /capabilities': 'inert',
  'GET /api/files': 'inert',
  'GET /api/files/search': 'inert',
  'GET /api/file': 'inert',
  'PUT /api/file': 'inert',
  'GET /api/raw': 'inert',
  'HEAD /api/raw': 'inert',
  'GET /api/skills': 'inert',
  // Without a WebSocket handshake it answers 426; the HTTP fuzzer never sends `Upgrade` (a real one starts a shell).
  'GET /ws/terminal': 'inert',
  'GET /ws': 'inert',
  'GET /terminals': 'inert',
  'POST /terminals': 'refused', // a valid body starts a shell
  'GET /terminals/:name': 'inert',
  'DELETE /terminals/:name': 'inert',
  'GET /workspace/tree': 'inert',
  'GET /workspace/children': 'inert',
  'GET /workspace/file': 'inert',
  'GET /workspace/resolve': 'inert',
  'GET /workspace/search': 'inert',
  'GET /workspace/repos': 'inert',
  'POST /workspace/repos': 'refused', // a valid body runs `git clone` over the network
  'POST /workspace/sync': 'inert', // the fuzz workspace holds no repository: nothing to fetch
  'POST /workspace/dir': 'inert',
  'DELETE /workspace/entry': 'inert',
  'POST /workspace/move': 'inert',
  'POST /workspace/copy': 'refused', // `.` copied into the tree again and again doubles it each time
  'POST /workspace/media-ticket': 'inert',
  'POST /workspace/agents': 'refused', // each valid id copies the workspace: memory and disk that are no leak
  'DELETE /workspace/agents/:agent': 'inert',
  'GET /workspace/raw': 'inert',
  'GET /workspace/media': 'inert',
  'HEAD /workspace/media': 'inert',
  'POST /workspace/upload': 'inert',
  'GET /workspace-files/stat': 'inert',
  'GET /workspace-files/read': 'inert',
  'GET /workspace-files/read-bytes': 'inert',
  'GET /workspace-files/list': 'inert',
  'GET /workspace-files/changes': 'inert',
  'POST /workspace/setup/install': 'refused', // a valid body runs package installs
  // The job calls need a repository, and the fuzz workspace has none: every one is a 404 before anything starts.
  'GET /workspace/repos/:repo/apps': 'inert',
  'POST /workspace/repos/:repo/apps/:app/start': 'inert',
  'POST /workspace/repos/:repo/apps/:app/stop': 'inert',
  'POST /workspace/repos/:repo/tests': 'inert',
  'GET /workspace/setup': 'inert',
  'GET /workspace/repos/:repo/graph': 'inert',
  'GET /workspace/modules': 'inert',
  'GET /workspace/health': 'inert',
  'GET /workspace/classify': 'inert',
  'GET /workspace/templates': 'inert',
  'POST /workspace/repos/:repo/apps': 'inert',
};

/** Every `/ws` command of handlers/rpc/command-table.ts. */
export const FUZZ_COMMANDS: Readonly<Record<string, FuzzGuard>> = {
  pty_spawn: 'refused', // starts a shell
  pty_write: 'inert', // no session exists: `Session X not found`
  pty_resize: 'inert',
  pty_kill: 'inert',
  pty_attach: 'inert',
  pty_detach: 'inert',
  run_command: 'refused', // runs a shell command
  get_cwd: 'inert',
  read_file: 'inert',
  read_file_base64: 'inert',
  write_file: 'inert',
  upload_file: 'inert',
  download_file: 'inert',
  read_directory: 'inert',
  list_files: 'inert',
  file_exists: 'inert',
  create_file: 'inert',
  create_directory: 'inert',
  rename_entry: 'inert',
  copy_entry: 'refused', // as POST /workspace/copy
  delete_entry: 'inert',
  search_in_files: 'inert',
  extract_zip: 'inert',
  // git runs outside any repository here (the workspace has none, and paths never name `.git`): each answers
  // `not a git repository` after its arguments are checked. `git_init` would make one.
  get_git_status: 'inert',
  git_log: 'inert',
  git_stash_list: 'inert',
  git_init: 'refused',
  get_git_diff: 'inert',
  get_git_staged_diff: 'inert',
  get_git_head_file: 'inert',
  git_show_index: 'inert',
  git_commit_diff: 'inert',
  git_add: 'inert',
  git_stage_all: 'inert',
  git_unstage: 'inert',
  git_unstage_all: 'inert',
  git_discard_all: 'inert',
  git_discard: 'inert',
  git_resolve_conflict: 'inert',
  git_commit: 'inert',
  git_revert: 'inert',
  git_undo_commit: 'inert',
  git_stash: 'inert',
  git_stash_pop: 'inert',
  git_push: 'inert',
  git_fetch: 'inert',
  git_pull: 'inert',
  git_branch_list: 'inert',
  git_checkout_branch: 'inert',
  git_merge: 'inert',
  git_merge_abort: 'inert',
  chat_stream: 'refused', // starts an agent CLI
  chat_cancel: 'inert',
  chat_models: 'refused', // asks a remote service
  chat_check_install: 'refused', // runs the agent CLIs' probes
};

/** `METHOD /path` of a route table row, as FUZZ_ROUTES keys it. */
export const routeKey = (row: Pick<RouteRow, 'method' | 'path'>) => `${row.method} ${row.path}`;

/** The files the fuzz workspace starts with: text, bytes, a folder, a file big enough for windows and ranges. */
export const MALFORMED_FIXTURE: Readonly<Record<string, string | Uint8Array>> = {
  'a.txt': 'alpha\nbeta\ngamma\n',
  'dir/b.txt': 'inside a folder\n',
  'bin.dat': Uint8Array.from({ length: 4096 }, (_, i) => (i * 31) % 256),
  'big.txt': 'line of text\n'.repeat(20_000),
  'clip.mp4': Uint8Array.from({ length: 2048 }, (_, i) => i % 256),
  '.claude/skills/demo/SKILL.md': '---\nname: demo\ndescription: a skill\n---\n',
};

/**
 * Paths the fuzzer names: the fixture's, missing ones, ones that leave the root, and malformed ones. A small set on
 * purpose: writes that succeed land on these names only, so the workspace (and the search engine's file list, which
 * follows it) stays the same size however long the run. Nothing here names `.git`: the workspace stays repo-free.
 */
export const FUZZ_PATHS: readonly string[] = [
  'a.txt', 'dir', 'dir/b.txt', 'bin.dat', 'big.txt', 'clip.mp4', '.', './a.txt', 'new.txt', 'dir/new.txt', 'missing/x.txt',
  'a.txt/under', '../escape', '/etc/passwd', '/', 'dir/../a.txt', 'dir\\b.txt', 'a\u0000b', '%2e%2e/x', 'x'.repeat(300),
  `${'d/'.repeat(2100)}f`, '', ' ', '~', '.agents', '.agents/x',
];

const fuzzPath = fc.constantFrom(...FUZZ_PATHS);

/** A query or body value: a path, a number that is not one, a hostile string, a boolean that is not one. */
const queryValue: fc.Arbitrary<string> = fc.oneof(
  fuzzPath,
  fc.constantFrom(...HOSTILE_NUMBER_TEXTS),
  hostileString,
  fc.constantFrom('true', 'TRUE', 'maybe', '1', 'yes', 'on', 'files', 'content', 'symbols'),
);

/** A schema's object keys, through the wrappers a handler puts around them (optional, pipe, refine…). */
export function objectKeys(schema: z.ZodType | undefined): string[] {
  let def = (schema as unknown as { _zod?: { def: Record<string, unknown> } } | undefined)?._zod?.def;
  while (def !== undefined) {
    if (def.type === 'object') return Object.keys(def.shape as object);
    const inner = (def.type === 'pipe' ? def.in : def.innerType) as { _zod?: { def: Record<string, unknown> } } | undefined;
    def = inner?._zod?.def;
  }
  return [];
}

/** The error shape a refusal of a route must have (runtime/errors/render.ts), by its access kind. */
export type ErrorShape = 'plain' | 'orpc' | 'workspace-files';

export function errorShapeOf(access: RouteAccessKind): ErrorShape {
  if (access === 'intentic') return 'orpc';
  if (access === 'workspace-files') return 'workspace-files';
  return 'plain';
}

/**
 * An unrouted path's shape: Intentic's catch-all under `/workspace/`, `{error: "not found"}` elsewhere — decided
 * on the path as the URL parser leaves it (`/workspace/%2e%2e` is `/`).
 */
export function errorShapeOfUnrouted(target: string): ErrorShape {
  return new URL(target, 'http://localhost').pathname.startsWith('/workspace/') ? 'orpc' : 'plain';
}

/** One generated HTTP request, sendable in-process (a Fetch Request) or over a socket (node:http). */
export interface HttpCase {
  /** The route table row it aims at (`METHOD /path`), or `unrouted`. */
  route: string;
  shape: ErrorShape;
  method: string;
  /** Path and query as sent, already encoded (raw `%zz` and all). */
  target: string;
  headers: [string, string][];
  body?: Uint8Array;
  /** What is wrong with it, for a failure message. */
  flaws: string[];
}

/** What the generators need to know about the daemon they aim at. */
export interface FuzzTarget {
  token: string;
  /** `limits.maxBodyBytes` and `limits.maxUploadBytes` of the app under test: over-long bodies are one byte past. */
  maxBodyBytes: number;
  maxUploadBytes: number;
}

const utf8 = (text: string) => new TextEncoder().encode(text);

/** Percent-encodes as a client would; a lone surrogate (which no URL can carry) goes as U+FFFD, as UTF-8 has it. */
const encode = (text: string) => encodeURIComponent(text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'));

/** Path parameters: names that exist nowhere, climb, are badly percent-encoded, or are far too long. */
const pathSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('none', 'a', '-bad', '.', '..', '%2e%2e', '%zz', '%', '%00', '%2F', 'a%2Fb', '%C0%AF', '%F0%9F%98%80', 'x'.repeat(5000)),
  fc.constantFrom(...HOSTILE_STRINGS.slice(0, 30)).map(encode),
  anyString.map(encode),
);

const panelFile = fc.oneof(fc.constantFrom('app.js', 'chunks/x.js', '..%2f..%2fetc%2fpasswd', 'chunks/../../x', '%zz', 'x'.repeat(3000)), pathSegment);

function fillPath(path: string): fc.Arbitrary<string> {
  const params = [...path.matchAll(/:(\w+)(\+?)/g)];
  if (params.length === 0) return fc.constant(path);
  return fc.tuple(...params.map(([, , plus]) => (plus ? panelFile : pathSegment))).map((values) => {
    let i = 0;
    return path.replace(/:(\w+)\+?/g, () => values[i++]!);
  });
}

/** One query key as sent: absent, hostile, empty, twice, in bracket notation, or with broken percent-encoding. */
function queryPart(key: string): fc.Arbitrary<string[]> {
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant<string[]>([]) },
    { weight: 5, arbitrary: queryValue.map((value) => [`${key}=${encode(value)}`]) },
    { weight: 1, arbitrary: fc.constant<string[]>([`${key}=`]) },
    { weight: 1, arbitrary: fc.constant<string[]>([key]) },
    { weight: 2, arbitrary: fc.tuple(queryValue, queryValue).map(([a, b]) => [`${key}=${encode(a)}`, `${key}=${encode(b)}`]) },
    { weight: 1, arbitrary: queryValue.map((value) => [`${key}[x]=${encode(value)}`, `${key}[]=1`]) },
    { weight: 1, arbitrary: fc.constantFrom('%zz', '%', '%00', '%ff%fe', '%C0%AF', '%uD800', '%%', '+', '&&', '=', '==').map((junk) => [`${key}=${junk}`]) },
  );
}

/** Keys no route reads, and queries too big for anyone: thousands of keys, a value of 64 KiB. */
const junkQuery: fc.Arbitrary<string[]> = fc.oneof(
  { weight: 8, arbitrary: fc.constant<string[]>([]) },
  { weight: 3, arbitrary: anyString.map((key) => [`${encode(key)}=1`]) },
  { weight: 2, arbitrary: fc.constant<string[]>(['__proto__[polluted]=1', 'constructor[prototype][x]=1']) },
  // Past Node's 16 KiB of headers these two never reach the daemon over a socket (431); in-process they do.
  { weight: 1, arbitrary: fc.constant(Array.from({ length: 3000 }, (_, i) => `k${i}=${i}`)) },
  { weight: 1, arbitrary: fc.constant<string[]>([`huge=${'x'.repeat(65_536)}`]) },
  { weight: 2, arbitrary: fc.constant<string[]>(['&&&', '=', '==x', '%']) },
);

function queryFor(keys: string[]): fc.Arbitrary<string> {
  return fc
    .tuple(fc.tuple(...keys.map(queryPart)), junkQuery, fc.boolean())
    .map(([parts, junk, shuffle]) => {
      const all = [...parts.flat(), ...junk];
      if (shuffle) all.reverse();
      return all.length === 0 ? '' : `?${all.join('&')}`;
    });
}

/** A JSON body of the route's keys, each absent, hostile, plausible or nested deep, plus keys nobody reads. */
function jsonObjectText(keys: string[]): fc.Arbitrary<string> {
  const value = fc.oneof(
    { weight: 3, arbitrary: hostileJsonValue.map((v) => JSON.stringify(v)) },
    { weight: 3, arbitrary: fuzzPath.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.constantFrom('1e309', '-1e309', '18446744073709551616', '-0', '1E308') },
    { weight: 1, arbitrary: fc.constant(nestedJson(100_000, 'array')) },
  );
  const member = (key: string) => fc.option(value.map((text) => `${JSON.stringify(key)}:${text}`), { freq: 4 });
  return fc
    .tuple(fc.tuple(...keys.map(member)), fc.array(fc.tuple(fc.constantFrom('__proto__', 'constructor', 'agent', 'x', ''), value), { maxLength: 2 }))
    .map(([members, extra]) => `{${[...members.filter((m): m is string => m !== null), ...extra.map(([k, v]) => `${JSON.stringify(k)}:${v}`)].join(',')}}`);
}

interface BodyCase {
  bytes: Uint8Array;
  flaw: string;
}

function jsonBody(keys: string[], cap: number): fc.Arbitrary<BodyCase> {
  return fc.oneof(
    { weight: 6, arbitrary: jsonObjectText(keys).map((text) => ({ bytes: utf8(text), flaw: 'body: wrong shape or types' })) },
    { weight: 1, arbitrary: hostileJsonValue.map((v) => ({ bytes: utf8(JSON.stringify(v) ?? 'null'), flaw: 'body: not an object' })) },
    { weight: 2, arbitrary: fc.constantFrom(...BROKEN_JSON_TEXTS).map((text) => ({ bytes: utf8(text), flaw: 'body: broken JSON' })) },
    { weight: 1, arbitrary: nestedJsonText.map((text) => ({ bytes: utf8(text), flaw: 'body: deeply nested' })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(jsonObjectText(keys), fc.constantFrom(...INVALID_UTF8), fc.double({ min: 0, max: 1, noNaN: true }))
        .map(([text, sequence, at]) => ({ bytes: withInvalidUtf8(text, sequence, at), flaw: 'body: invalid UTF-8' })),
    },
    { weight: 1, arbitrary: fc.constant({ bytes: utf8(`{"content":"${'a'.repeat(cap)}"}`), flaw: 'body: over the cap' }) },
  );
}

function rawBody(cap: number): fc.Arbitrary<BodyCase> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.uint8Array({ maxLength: 4096 }).map((bytes) => ({ bytes, flaw: 'body: random bytes' })) },
    { weight: 1, arbitrary: fc.constant({ bytes: new Uint8Array(cap + 1), flaw: 'body: over the cap' }) },
  );
}

/** True when the route's own body schema takes this body: a `refused` route must never be sent one. */
function bodyAccepted(schema: z.ZodType | undefined, bytes: Uint8Array | undefined): boolean {
  if (schema === undefined || bytes === undefined) return false;
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return false;
  }
  return schema.safeParse(json).success;
}

/** Headers a client should not send this way: bad ranges, tags and dates, wrong content types, odd encodings. */
const headerFlaw: fc.Arbitrary<[string, string]> = fc.oneof(
  fc.constantFrom(...BAD_RANGES).map((v): [string, string] => ['range', v]),
  fc.constantFrom(...BAD_ENTITY_TAGS).map((v): [string, string] => ['if-match', v]),
  fc.constantFrom(...BAD_ENTITY_TAGS).map((v): [string, string] => ['if-none-match', v]),
  fc.constantFrom(...BAD_ENTITY_TAGS, ...BAD_DATES).map((v): [string, string] => ['if-range', v]),
  fc.constantFrom(...BAD_DATES).map((v): [string, string] => ['if-modified-since', v]),
  fc.constantFrom(...BAD_DATES).map((v): [string, string] => ['if-unmodified-since', v]),
  fc.constantFrom(...BAD_CONTENT_TYPES).map((v): [string, string] => ['content-type', v]),
  fc.constantFrom('zz', 'G'.repeat(64), 'a'.repeat(63), 'A'.repeat(64), 'a'.repeat(65)).map((v): [string, string] => ['x-intentic-base-hash', v]),
  fc.constantFrom('gzip', 'br', 'garbage').map((v): [string, string] => ['content-encoding', v]),
  fc.constantFrom('http://evil.example', 'null', 'garbage').map((v): [string, string] => ['origin', v]),
  headerSafeString.map((v): [string, string] => ['range', `bytes=${v}`]),
  headerSafeString.map((v): [string, string] => ['if-match', v]),
  headerSafeString.map((v): [string, string] => ['accept', v]),
);

/** How the token is (mis)presented; most cases present it rightly, so handlers get to parse the rest. */
interface PresentedAuth {
  headers: [string, string][];
  query: string;
  flaw?: string;
}

function auth(token: string): fc.Arbitrary<PresentedAuth> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant<PresentedAuth>({ headers: [['authorization', `Bearer ${token}`]], query: '' }) },
    { weight: 1, arbitrary: fc.constant<PresentedAuth>({ headers: [], query: '', flaw: 'auth: none' }) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(`Bearer ${token}x`, 'Bearer', `Basic ${token}`, `bearer  ${token} extra`, `Bearer ${'t'.repeat(8000)}`, `Bearer ${token}, Bearer other`)
        .map((value): PresentedAuth => ({ headers: [['authorization', value]], query: '', flaw: 'auth: malformed header' })),
    },
    { weight: 1, arbitrary: fc.constant<PresentedAuth>({ headers: [['x-intentic-control', `${token}\u00ff`]], query: '', flaw: 'auth: bad x-intentic-control' }) },
    { weight: 1, arbitrary: fc.constant<PresentedAuth>({ headers: [], query: `token=${token}&token=${token}`, flaw: 'auth: token twice in the query' }) },
  );
}

/** Malformed requests for one route of the table. */
export function httpCaseFor(row: Pick<RouteRow, 'method' | 'path' | 'access'>, target: FuzzTarget): fc.Arbitrary<HttpCase> {
  const key = routeKey(row);
  const doc = routeDocIndex[`${row.method} ${row.path.replace(/:(\w+)\+?/g, '{$1}')}`];
  const guard = FUZZ_ROUTES[key] ?? 'refused';
  const queryKeys = objectKeys(doc?.query);
  const takesJson = doc?.body !== undefined;
  const takesBytes = doc?.rawBody !== undefined;
  const body: fc.Arbitrary<BodyCase | null> = takesJson
    ? jsonBody(objectKeys(doc!.body), target.maxBodyBytes)
    : takesBytes
      ? rawBody(target.maxUploadBytes)
      : fc.option(jsonBody(['path'], target.maxBodyBytes), { freq: 6 });
  const arbitrary = fc
    .record({
      path: fillPath(row.path),
      query: queryFor(queryKeys.length > 0 ? queryKeys : ['path']),
      auth: auth(target.token),
      body,
      contentType: fc.option(fc.constantFrom('application/json', ...BAD_CONTENT_TYPES), { freq: 2 }),
      headers: fc.array(headerFlaw, { maxLength: 3 }),
    })
    .map(({ path, query, auth: presented, body: sent, contentType, headers }): HttpCase => {
      const queryText = [query.replace(/^\?/, ''), presented.query].filter(Boolean).join('&');
      const all: [string, string][] = [...presented.headers, ...headers];
      if (sent && contentType !== null && !all.some(([name]) => name === 'content-type')) all.push(['content-type', contentType]);
      const flaws = [
        ...(presented.flaw ? [presented.flaw] : []),
        ...(query ? ['query: hostile values, repeats, junk'] : []),
        ...(sent ? [sent.flaw] : []),
        ...headers.map(([name, value]) => `header ${name}: ${value.slice(0, 60)}`),
      ];
      return {
        route: key,
        shape: errorShapeOf(row.access),
        method: row.method,
        target: queryText ? `${path}?${queryText}` : path,
        headers: all,
        ...(sent ? { body: sent.bytes } : {}),
        flaws,
      };
    });
  return guard === 'inert' ? arbitrary : arbitrary.filter((c) => !bodyAccepted(doc?.body, c.body));
}

/** Requests no route takes: other methods, unknown paths, methods a route does not serve. */
export function unroutedCase(target: FuzzTarget): fc.Arbitrary<HttpCase> {
  return fc
    .record({
      method: fc.constantFrom('PATCH', 'PROPFIND', 'TRACE', 'DELETE', 'POST', 'PUT', 'GET', 'M-SEARCH', 'get'),
      path: fc.oneof(
        fc.constantFrom('/nope', '/api', '/api/', '/workspace/nope', '/workspace-files/nope', '/ws/nope', '/healthz/x', '/%zz', '/..%2f..%2fetc', '//api/files'),
        pathSegment.map((segment) => `/workspace/${segment}`),
        pathSegment.map((segment) => `/${segment}`),
      ),
    })
    .map(({ method, path }) => ({
      route: 'unrouted',
      shape: errorShapeOfUnrouted(path),
      method,
      target: path,
      headers: [['authorization', `Bearer ${target.token}`]],
      flaws: ['no such route'],
    }));
}

/** Every route's cases, each route equally likely, and unrouted requests beside them. */
export function anyHttpCase(target: FuzzTarget): fc.Arbitrary<HttpCase> {
  return fc.oneof(...routeTable.map((row) => httpCaseFor(row, target)), unroutedCase(target));
}

// ---------------------------------------------------------------------------------------------------------------
// `/ws` frames

/** One frame to send on `/ws`, and how many replies it must get (an event other than `__ping` gets none). */
export interface WsFrameCase {
  data: string | Uint8Array;
  binary: boolean;
  replies: 0 | 1;
  flaw: string;
}

/** The frame's id: ordinary, or at the edges of what JSON numbers and strings can carry. */
const frameId: fc.Arbitrary<string> = fc.oneof(
  fc.nat().map(String),
  fc.constantFrom(...HOSTILE_NUMBERS.map((n) => JSON.stringify(n)), '1e309', '18446744073709551616', '-0', '1.5e-300'),
  anyString.map((s) => JSON.stringify(s)),
  fc.constant(JSON.stringify('i'.repeat(100_000))),
);

/** True when a command's own argument rules refuse `args` (a required key missing or of the wrong type). */
function argsRefused(command: string, args: Record<string, unknown>): boolean {
  const shape = rpcCommands.get(command)?.args ?? {};
  return Object.entries(shape).some(([key, schema]) => {
    if (schema.safeParse(undefined).success) return false;
    return !Object.hasOwn(args, key) || !schema.safeParse(args[key]).success;
  });
}

/** Marks the argument replaced by 100 000 levels of nesting once the frame is text (JSON.stringify would recurse). */
const DEEP = 'DEEP-NESTING-GOES-HERE-7f3a';

/** A request frame for `command`: each argument absent, hostile, plausible or nested deep. */
function requestFrame(command: string): fc.Arbitrary<WsFrameCase> {
  const keys = Object.keys(rpcCommands.get(command)?.args ?? {});
  const value = fc.oneof(
    { weight: 3, arbitrary: hostileJsonValue },
    { weight: 3, arbitrary: fuzzPath as fc.Arbitrary<unknown> },
    { weight: 1, arbitrary: fc.constant(DEEP) },
  );
  const args = fc.tuple(...keys.map((key) => fc.option(value, { freq: 5 }).map((v) => [key, v] as const))).map(
    (pairs) => Object.fromEntries(pairs.filter(([, v]) => v !== null)) as Record<string, unknown>,
  );
  const frame = fc.tuple(frameId, args).map(([id, given]): WsFrameCase & { args: Record<string, unknown> } => ({
    data: `{"id":${id},"command":${JSON.stringify(command)},"args":${JSON.stringify(given).replace(`"${DEEP}"`, nestedJson(100_000, 'array'))}}`,
    binary: false,
    replies: 1,
    flaw: `${command}: hostile args`,
    args: given,
  }));
  const chosen = FUZZ_COMMANDS[command] === 'inert' ? frame : frame.filter(({ args: given }) => argsRefused(command, given));
  return chosen.map(({ args: _args, ...rest }) => rest);
}

/** Frames that are no request: not JSON, not an object, missing or mistyped keys, unknown commands, binary. */
const malformedFrame: fc.Arbitrary<WsFrameCase> = fc.oneof(
  fc.constantFrom(...BROKEN_JSON_TEXTS).map((data) => ({ data, binary: false, replies: 1 as const, flaw: 'broken JSON' })),
  hostileJsonValue.filter((v) => typeof v !== 'object' || v === null || Array.isArray(v)).map((v) => ({ data: JSON.stringify(v), binary: false, replies: 1 as const, flaw: 'not an object' })),
  fc.constantFrom(
    '{"command":"get_cwd"}', '{"id":1}', '{"id":null,"command":"get_cwd"}', '{"id":{},"command":"get_cwd"}', '{"id":[1],"command":"get_cwd"}',
    '{"id":true,"command":"get_cwd"}', '{"id":1,"command":5}', '{"id":1,"command":null}', '{"id":1,"command":"get_cwd","args":[]}',
    '{"id":1,"command":"get_cwd","args":"x"}', '{"id":1,"command":"get_cwd","args":5}', '{"id":1e309,"command":"get_cwd"}',
    '{"id":1,"command":"read_file","args":{"path":"a.txt"},"args":null}', '{"__proto__":{"id":1},"command":"get_cwd"}',
    '{"event":5}', '{"event":"__ping","command":"get_cwd","id":1}',
  ).map((data) => ({ data, binary: false, replies: 1 as const, flaw: 'frame of the wrong shape' })),
  fc.constantFrom('{"event":"__ping"}').map((data) => ({ data, binary: false, replies: 1 as const, flaw: 'keepalive' })),
  fc.constantFrom('{"event":"x"}', '{"event":"__pong"}', '{"event":"pty-output","payload":{}}').map((data) => ({ data, binary: false, replies: 0 as const, flaw: 'client event' })),
  fc
    .tuple(frameId, fc.oneof(fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', '', ' get_cwd', 'GET_CWD', 'x'.repeat(10_000)), anyString))
    .filter(([, command]) => !rpcCommands.has(command))
    .map(([id, command]) => ({ data: `{"id":${id},"command":${JSON.stringify(command)}}`, binary: false, replies: 1 as const, flaw: 'unknown command' })),
  nestedJsonText.map((data) => ({ data, binary: false, replies: 1 as const, flaw: 'deeply nested frame' })),
  fc.uint8Array({ maxLength: 256 }).map((data) => ({ data, binary: true, replies: 1 as const, flaw: 'binary frame' })),
  fc.constant({ data: utf8('{"id":1,"command":"get_cwd"}'), binary: true, replies: 1 as const, flaw: 'a request as a binary frame' }),
);

/** Any frame: a request of any command with hostile arguments, or a malformed frame. */
export const anyWsFrame: fc.Arbitrary<WsFrameCase> = fc.oneof(
  { weight: 3, arbitrary: fc.oneof(...[...rpcCommands.keys()].map(requestFrame)) },
  { weight: 1, arbitrary: malformedFrame },
);

/** The request frames of one command (the test runs every command this way). */
export const wsFrameFor = requestFrame;
