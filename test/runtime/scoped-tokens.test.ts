/**
 * Scoped tokens (docs/architecture.md#scoped-tokens), route × scope: every guarded route of the table is called with a
 * read token and with an agent token, and is either open to it or refused 403 in its dialect's shape — against the
 * expectation written out here (not read back from the table). A read token never writes: every write route is
 * called with a valid body and the tree is compared byte for byte. `/ws` over a real socket: read commands run,
 * the rest answer a refusal. An agent token reaches its own copy only.
 */
import { execFileSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintScopedToken, type TokenScope } from '../../core/auth/scoped-token.ts';
import { rpcCommands, READ_COMMANDS } from '../../handlers/rpc/command-table.ts';
import type { WorkspaceApp } from '../../runtime/app.ts';
import { routeTable, type RouteRow } from '../../runtime/routes.ts';
import { startNodeServer, type NodeServer } from '../../runtime/node/server.ts';
import { RpcClient } from '../support/rpc-client.ts';
import { nodeApp, request, tempWorkspace, TEST_TOKEN, type TempWorkspace } from '../support/workspace.ts';

const READ: TokenScope = { kind: 'read' };
const AGENT: TokenScope = { kind: 'agent', agent: 'a1' };
const HOUR = 3_600_000;

/** What each scope may call, written out: the table must say the same (runtime/routes.ts). */
const OPEN_TO_READ = new Set([
  'GET /capabilities',
  'GET /api/files',
  'GET /api/files/search',
  'GET /api/file',
  'GET /api/raw',
  'HEAD /api/raw',
  'GET /api/skills',
  'GET /ws',
  'GET /workspace/tree',
  'GET /workspace/children',
  'GET /workspace/file',
  'GET /workspace/resolve',
  'GET /workspace/search',
  'GET /workspace/repos',
  'POST /workspace/media-ticket',
  'GET /workspace/raw',
  'GET /workspace-files/stat',
  'GET /workspace-files/read',
  'GET /workspace-files/read-bytes',
  'GET /workspace-files/list',
  'GET /workspace-files/changes',
  'GET /workspace/repos/:repo/apps',
  'GET /workspace/setup',
  'GET /workspace/repos/:repo/graph',
  'GET /workspace/modules',
  'GET /workspace/health',
  'GET /workspace/classify',
  'GET /workspace/templates',
]);
const OPEN_TO_AGENT = new Set([
  'GET /capabilities',
  'GET /workspace/tree',
  'GET /workspace/children',
  'GET /workspace/file',
  'GET /workspace/resolve',
  'POST /workspace/dir',
  'DELETE /workspace/entry',
  'POST /workspace/move',
  'POST /workspace/copy',
  'POST /workspace/media-ticket',
  'GET /workspace/raw',
  'POST /workspace/upload',
]);

const guarded = routeTable.filter((row) => row.access !== 'public' && row.access !== 'intentic-ticketed');
const key = (row: RouteRow) => `${row.method} ${row.path}`;

let workspace: TempWorkspace;
let app: WorkspaceApp;

beforeAll(async () => {
  workspace = await tempWorkspace({ 'a.txt': 'alpha\n', 'src/b.txt': 'beta\n' });
  app = nodeApp(workspace.root);
  const created = await app.fetch(request('/workspace/agents', jsonBody('POST', { agent: 'a1' })));
  expect(created.status).toBe(200);
  const other = await app.fetch(request('/workspace/agents', jsonBody('POST', { agent: 'a2' })));
  expect(other.status).toBe(200);
});

afterAll(async () => {
  await app?.close();
  await workspace?.cleanup();
});

function jsonBody(method: string, body: unknown): RequestInit {
  return { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

function withToken(token: string, init: RequestInit = {}): RequestInit {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${token}`);
  return { ...init, headers };
}

/** The message of an error body in any dialect's shape (ori/bytes `{error}`, oRPC `{message}`, workspace-files `{error: {message}}`). */
function errorMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { error, message } = body as { error?: unknown; message?: unknown };
  if (typeof error === 'string') return error;
  if (typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string') {
    return (error as { message: string }).message;
  }
  return typeof message === 'string' ? message : undefined;
}

/** Every file and link under the root (the agents folder included), with its bytes: what a refused write must leave. */
async function snapshot(dir: string, prefix = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) {
    const path = join(dir, name);
    const rel = prefix + name;
    const info = await lstat(path);
    if (info.isSymbolicLink()) out[rel] = `-> ${await readlink(path)}`;
    else if (info.isDirectory()) Object.assign(out, { [rel + '/']: '<dir>' }, await snapshot(path, rel + '/'));
    else out[rel] = (await readFile(path)).toString('base64');
  }
  return out;
}

describe('the route table says what each scope may call', () => {
  it('matches the expectation written out here, row by row', () => {
    expect(guarded.filter((row) => row.scopes?.includes('read')).map(key).sort()).toEqual([...OPEN_TO_READ].sort());
    expect(guarded.filter((row) => row.scopes?.includes('agent')).map(key).sort()).toEqual([...OPEN_TO_AGENT].sort());
  });
});

describe.each([
  ['read', READ, OPEN_TO_READ],
  ['agent:a1', AGENT, OPEN_TO_AGENT],
] as const)('a %s token, route by route', (_name, scope, open) => {
  const token = () => mintScopedToken(TEST_TOKEN, scope, HOUR);

  it.each(guarded.map((row) => [key(row), row] as const))('%s', async (_label, row) => {
    const path = row.path.replace(':repo', 'r').replace(':app', 'web').replace(':agent', 'a1').replace(':name', 't1');
    // The agent's id where a route reads one from the query: an open route must get past the view's check too.
    const url = `${path}?agent=a1&path=a.txt`;
    const response = await app.fetch(request(url, withToken(token(), { method: row.method })));
    const refusedByScope = async () => {
      if (response.status !== 403) return false;
      return /token cannot call/.test(errorMessage(await response.clone().json()) ?? '');
    };
    if (open.has(key(row))) {
      expect(await refusedByScope(), `${key(row)}: ${response.status}`).toBe(false);
      expect(response.status).toBeLessThan(500);
    } else {
      expect(response.status).toBe(403);
      const body = await response.json();
      expect(errorMessage(body)).toBe(`a ${scope.kind === 'read' ? 'read-only' : 'agent'} token cannot call ${row.method} ${path}`);
      if (row.access === 'intentic') expect(body).toMatchObject({ code: 'FORBIDDEN', status: 403, defined: false });
      if (row.access === 'workspace-files') expect(body).toMatchObject({ error: { code: 'workspace-file/forbidden' } });
    }
    if (!response.bodyUsed) await response.body?.cancel();
  });
});

describe('a read token never writes', () => {
  /** Valid writes of every kind the HTTP dialects have, each of which the full token would carry out. */
  const writes: [string, string, RequestInit][] = [
    ['ori write', '/api/file?path=new.txt', jsonBody('PUT', { content: 'x' })],
    ['ori overwrite', '/api/file?path=a.txt', jsonBody('PUT', { content: 'overwritten' })],
    ['Intentic upload', '/workspace/upload?path=up.txt', { method: 'POST', body: 'bytes' }],
    ['Intentic mkdir', '/workspace/dir', jsonBody('POST', { path: 'made' })],
    ['Intentic delete', '/workspace/entry', jsonBody('DELETE', { path: 'a.txt' })],
    ['Intentic move', '/workspace/move', jsonBody('POST', { from: 'a.txt', to: 'moved.txt' })],
    ['Intentic copy', '/workspace/copy', jsonBody('POST', { from: 'src', to: 'src-copy' })],
    ['Intentic agent create', '/workspace/agents', jsonBody('POST', { agent: 'a3' })],
    ['Intentic agent delete', '/workspace/agents/a2', { method: 'DELETE' }],
    ['Intentic clone', '/workspace/repos', jsonBody('POST', { url: 'https://example.invalid/r.git', name: 'r' })],
    ['Intentic sync', '/workspace/sync', jsonBody('POST', {})],
    ['a terminal', '/terminals', jsonBody('POST', { name: 't1' })],
    ['an install', '/workspace/setup/install', jsonBody('POST', {})],
  ];

  it.each(writes)('%s: 403, and the tree is byte for byte as it was', async (_name, url, init) => {
    const before = await snapshot(workspace.root);
    const response = await app.fetch(request(url, withToken(mintScopedToken(TEST_TOKEN, READ, HOUR), init)));
    expect(response.status).toBe(403);
    expect(await snapshot(workspace.root)).toEqual(before);
  });

  it('the same writes with the full token do write (the requests above are real writes)', async () => {
    const response = await app.fetch(request('/api/file?path=full.txt', jsonBody('PUT', { content: 'full' })));
    expect(response.status).toBe(200);
    expect(await readFile(join(workspace.root, 'full.txt'), 'utf8')).toBe('full');
  });
});

describe('an agent token reaches its own copy only', () => {
  const agentToken = () => mintScopedToken(TEST_TOKEN, AGENT, HOUR);

  it('writes land in its copy, never in the shared tree', async () => {
    const response = await app.fetch(request('/workspace/upload?path=from-agent.txt&agent=a1', withToken(agentToken(), { method: 'POST', body: 'mine' })));
    expect(response.status).toBe(200);
    await expect(lstat(join(workspace.root, 'from-agent.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    const read = await app.fetch(request('/workspace/file?path=from-agent.txt&agent=a1', withToken(agentToken())));
    expect(await read.json()).toMatchObject({ content: 'mine' });
  });

  it.each([
    ['the shared tree (no agent)', '/workspace/file?path=a.txt', {}],
    ["another agent's copy", '/workspace/file?path=a.txt&agent=a2', {}],
    ['a write to the shared tree', '/workspace/dir', jsonBody('POST', { path: 'shared-dir' })],
    ["a write to another agent's copy", '/workspace/dir', jsonBody('POST', { path: 'other-dir', agent: 'a2' })],
  ] as const)('%s: 403 in oRPC shape, nothing written', async (_name, url, init) => {
    const before = await snapshot(workspace.root);
    const response = await app.fetch(request(url, withToken(agentToken(), init)));
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ code: 'FORBIDDEN', message: "this token acts only on agent a1's copy: pass agent=a1" });
    expect(await snapshot(workspace.root)).toEqual(before);
  });
});

describe('which scoped tokens open anything', () => {
  const read = (token: string, init: RequestInit = {}) => app.fetch(request('/api/file?path=a.txt', withToken(token, init)));

  it('an expired one, a tampered one and one signed with another token answer 401', async () => {
    const expired = mintScopedToken(TEST_TOKEN, READ, 1000, Date.now() - 10_000);
    expect((await read(expired)).status).toBe(401);
    const genuine = mintScopedToken(TEST_TOKEN, READ, HOUR);
    const [prefix, payload, mac] = genuine.split('.') as [string, string, string];
    // The payload re-signed as an agent token without the key: the MAC no longer matches.
    const forgedPayload = Buffer.from(JSON.stringify({ s: 'agent:a1', e: 4_000_000_000 })).toString('base64url');
    expect((await read(`${prefix}.${forgedPayload}.${mac}`)).status).toBe(401);
    expect((await read(`${prefix}.${payload}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`)).status).toBe(401);
    expect((await read(mintScopedToken('another-daemons-token', READ, HOUR))).status).toBe(401);
    expect((await read(genuine)).status).toBe(200);
  });

  it('as `?token=` on a GET and as `x-intentic-control`, like the full token; never as `?token=` on a write', async () => {
    const token = mintScopedToken(TEST_TOKEN, READ, HOUR);
    const query = await app.fetch(new Request(`http://localhost/api/file?path=a.txt&token=${token}`));
    expect(query.status).toBe(200);
    const control = await app.fetch(new Request('http://localhost/workspace/tree', { headers: { 'x-intentic-control': token } }));
    expect(control.status).toBe(200);
    const agentToken = mintScopedToken(TEST_TOKEN, AGENT, HOUR);
    const write = await app.fetch(new Request(`http://localhost/workspace/upload?path=q.txt&agent=a1&token=${agentToken}`, { method: 'POST', body: 'q' }));
    expect(write.status).toBe(401);
  });

  it('the full token and Intentic\'s control header keep opening everything', async () => {
    const response = await app.fetch(new Request('http://localhost/api/file?path=a.txt', { method: 'PUT', body: JSON.stringify({ content: 'A' }), headers: { 'content-type': 'application/json', 'x-intentic-control': TEST_TOKEN } }));
    expect(response.status).toBe(200);
    expect(await readFile(join(workspace.root, 'a.txt'), 'utf8')).toBe('A');
  });
});

describe('/ws with a read token (a real socket)', () => {
  let server: NodeServer;
  let served: TempWorkspace;

  beforeAll(async () => {
    served = await tempWorkspace({ 'a.txt': 'alpha\n' });
    execFileSync('git', ['init', '-q', '-b', 'main', served.root]);
    server = await startNodeServer({ root: served.root, auth: { token: TEST_TOKEN }, host: '127.0.0.1', port: 0, watch: false });
  });

  afterAll(async () => {
    await server?.close();
    await served?.cleanup();
  });

  it('runs every read command and refuses every other one by name; nothing is written', async () => {
    const before = await snapshot(served.root);
    const client = await RpcClient.connect(server, mintScopedToken(TEST_TOKEN, READ, HOUR));
    try {
      expect(await client.ok('read_file', { path: 'a.txt' })).toBe('alpha\n');
      expect((await client.call('get_git_status', { path: '.' })).error ?? '').not.toMatch(/forbidden/);
      const writes = [
        ['write_file', { path: 'a.txt', content: 'changed' }],
        ['create_file', { path: 'new.txt' }],
        ['delete_entry', { path: 'a.txt' }],
        ['pty_spawn', { cols: 80, rows: 24 }],
        ['run_command', { command: 'touch ran' }],
        ['git_commit', { path: '.', message: 'm' }],
        ['git_init', { path: 'sub' }],
        ['chat_stream', {}],
      ] as const;
      for (const [command, args] of writes) {
        const reply = await client.call(command, args);
        expect(reply, command).toMatchObject({ ok: false, error: `forbidden: a read-only token cannot run ${command}` });
      }
      for (const command of rpcCommands.keys()) {
        const reply = await client.call(command, {});
        const refused = reply.error === `forbidden: a read-only token cannot run ${command}`;
        expect(refused, command).toBe(!READ_COMMANDS.has(command));
      }
    } finally {
      await client.close();
    }
    expect(await snapshot(served.root)).toEqual(before);
  });

  it('an agent token cannot open /ws, and no scoped token opens a terminal socket', async () => {
    const agentUrl = `${server.url}/ws?token=${mintScopedToken(TEST_TOKEN, AGENT, HOUR)}`;
    expect(await upgradeStatus(agentUrl)).toBe(403);
    const terminalUrl = `${server.url}/ws/terminal?token=${mintScopedToken(TEST_TOKEN, READ, HOUR)}`;
    expect(await upgradeStatus(terminalUrl)).toBe(403);
  });
});

/** The HTTP status a WebSocket upgrade to `url` is refused with (a plain request: undici's fetch cannot send one). */
function upgradeStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const upgrade = httpRequest(url, {
      headers: { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' },
    });
    upgrade.on('response', (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    upgrade.on('upgrade', (_response, socket) => {
      socket.destroy();
      resolve(101);
    });
    upgrade.on('error', reject);
    upgrade.end();
  });
}
