/**
 * A representative slice of every dialect's HTTP routes, driven in-process through `app.fetch` as the vitest
 * handler tests do, but as a plain script: vitest's runner is Node's, and this must run unchanged under
 * `bun run` and `deno run` (docs/runtimes.md#the-tests). test/runtimes/bun-deno.test.ts runs it on both.
 *
 * Each check gets a fresh workspace and app, so a failure never cascades. Every check runs twice: over a
 * MemoryFileSystem (the edge-clean core, as on Workers) and over NodeFileSystem in a temp folder (the runtime's
 * `node:fs`, which the Bun and Deno daemons serve). The last line is `N passed, M failed`; any failure exits 1.
 */
import assert from 'node:assert/strict';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../adapters/fs/memory-file-system.ts';
import { NodeFileSystem } from '../../adapters/fs/node-file-system.ts';
import { createWorkspaceApp, type WorkspaceApp } from '../../runtime/app.ts';
import { API_VERSION } from '../../runtime/openapi/api-version.ts';

const TOKEN = 'suite-token-0123456789';
const SEED: Record<string, string> = {
  'README.md': '# Hello\n',
  'alphabet.txt': 'abcdefghijklmnopqrstuvwxyz',
  'src/app.ts': 'export const answer = 42;\n',
  'src/util.ts': 'export function helper() {\n  return "needle";\n}\n',
  'docs/guide.md': 'The needle is here.\nsecond line\n',
};

interface Workspace {
  app: WorkspaceApp;
  fs: FileSystem;
  root: string;
  text(rel: string): Promise<string>;
  call(method: string, path: string, init?: { body?: unknown; headers?: Record<string, string>; token?: string | null }): Promise<Response>;
  /** Status and parsed JSON body, compared together so a failure shows both. */
  json(method: string, path: string, init?: Parameters<Workspace['call']>[2]): Promise<{ status: number; body: unknown }>;
}

type Backend = { name: string; open(): Promise<{ fs: FileSystem; root: string; cleanup(): Promise<void> }> };

const BACKENDS: Backend[] = [
  {
    name: 'memory',
    async open() {
      // Something outside the root, so `../outside` names a file that exists.
      return { fs: new MemoryFileSystem({ '/outside/secret.txt': 'secret' }), root: '/w', cleanup: async () => {} };
    },
  },
  {
    name: 'disk',
    async open() {
      const base = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-runtimes-')));
      const fs = new NodeFileSystem();
      await fs.write(`${base}/outside/secret.txt`, 'secret', { mkdirs: true });
      return { fs, root: `${base}/w`, cleanup: () => rm(base, { recursive: true, force: true }) };
    },
  },
];

async function openWorkspace(backend: Backend): Promise<Workspace & { cleanup(): Promise<void> }> {
  const { fs, root, cleanup } = await backend.open();
  for (const [rel, content] of Object.entries(SEED)) await fs.write(`${root}/${rel}`, content, { mkdirs: true });
  const app = createWorkspaceApp({ fs, root, auth: { token: TOKEN } });
  const call: Workspace['call'] = (method, path, { body, headers = {}, token = TOKEN } = {}) => {
    const all = new Headers(headers);
    if (token !== null) all.set('authorization', `Bearer ${token}`);
    if (body !== undefined) all.set('content-type', 'application/json');
    return app.fetch(new Request(new URL(path, 'http://localhost'), { method, headers: all, body: body === undefined ? null : JSON.stringify(body) }));
  };
  return {
    app,
    fs,
    root,
    text: async (rel) => new TextDecoder().decode(await fs.read(`${root}/${rel}`)),
    call,
    json: async (method, path, init) => {
      const response = await call(method, path, init);
      assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8', `${method} ${path}: content-type`);
      return { status: response.status, body: await response.json() };
    },
    cleanup: async () => {
      await app.close();
      await cleanup();
    },
  };
}

type Check = [name: string, run: (ws: Workspace) => Promise<void>];
const ok = (body: unknown) => ({ status: 200, body });
const oriError = (status: number, error: string) => ({ status, body: { error } });
const orpcError = (status: number, code: string, message: string) => ({ status, body: { defined: false, code, status, message } });
const filesError = (status: number, code: string, message: string, details: Record<string, unknown> = {}) => ({
  status,
  body: { error: { code, message, details } },
});
const MISSING_TOKEN = 'missing or invalid token';
const OUTSIDE = 'path is outside the workspace';

const CHECKS: Check[] = [
  // common
  ['GET /healthz needs no token', async (ws) => {
    assert.deepEqual(await ws.json('GET', '/healthz', { token: null }), ok({ ok: true }));
  }],
  ['GET /openapi.json is an OpenAPI 3.1 document of every dialect, without a token', async (ws) => {
    const { status, body } = await ws.json('GET', '/openapi.json', { token: null });
    const doc = body as { openapi: string; info: { version: string }; paths: Record<string, Record<string, unknown>> };
    assert.equal(status, 200);
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, API_VERSION);
    for (const [path, method] of [['/api/files', 'get'], ['/api/file', 'put'], ['/workspace/tree', 'get'], ['/workspace/move', 'post'], ['/workspace-files/stat', 'get']]) {
      assert.ok(doc.paths[path!]?.[method!], `${method} ${path} documented`);
    }
  }],
  ['GET /ws/protocol.json is JSON Schema, without a token', async (ws) => {
    const { status, body } = await ws.json('GET', '/ws/protocol.json', { token: null });
    assert.equal(status, 200);
    assert.match(String((body as { $schema?: string }).$schema), /json-schema\.org/);
  }],
  ['GET /capabilities: nothing but HTTP on an app given no adapters', async (ws) => {
    assert.deepEqual(
      await ws.json('GET', '/capabilities'),
      ok({ version: API_VERSION, webSockets: false, terminals: false, commands: false, git: false, chat: false, watching: false }),
    );
  }],
  ['an unknown route is 404 { error }', async (ws) => {
    assert.deepEqual(await ws.json('GET', '/nope'), oriError(404, 'not found'));
  }],
  // auth, each dialect in its shape
  ['no token: 401 in ori’s, Intentic’s and workspace-files’ shapes', async (ws) => {
    assert.deepEqual(await ws.json('GET', '/api/files', { token: null }), oriError(401, MISSING_TOKEN));
    assert.deepEqual(await ws.json('GET', '/capabilities', { token: null }), oriError(401, MISSING_TOKEN));
    assert.deepEqual(await ws.json('GET', '/workspace/tree', { token: null }), orpcError(401, 'UNAUTHORIZED', MISSING_TOKEN));
    assert.deepEqual(
      await ws.json('GET', '/workspace-files/stat?path=README.md', { token: null }),
      filesError(401, 'workspace-file/unauthorized', MISSING_TOKEN),
    );
  }],
  ['a wrong token is 401; x-intentic-control and ?token= on a GET are accepted', async (ws) => {
    assert.deepEqual(await ws.json('GET', '/api/files', { token: 'nope' }), oriError(401, MISSING_TOKEN));
    assert.equal((await ws.call('GET', '/api/files', { token: null, headers: { 'x-intentic-control': TOKEN } })).status, 200);
    assert.equal((await ws.call('GET', `/api/files?token=${TOKEN}`, { token: null })).status, 200);
  }],
  ['?token= never authorises a write, and nothing is written', async (ws) => {
    const put = await ws.json('PUT', `/api/file?path=link.txt&token=${TOKEN}`, { token: null, body: { content: 'x' } });
    assert.deepEqual(put, oriError(401, MISSING_TOKEN));
    await assert.rejects(ws.fs.stat(`${ws.root}/link.txt`), { code: 'not-found' });
  }],
  // ori
  ['ori GET /api/files lists the root: folders first, then files', async (ws) => {
    const r = ws.root;
    assert.deepEqual(await ws.json('GET', '/api/files'), ok({
      path: r,
      entries: [
        { name: 'docs', path: `${r}/docs`, isDir: true, size: 0 },
        { name: 'src', path: `${r}/src`, isDir: true, size: 0 },
        { name: 'README.md', path: `${r}/README.md`, isDir: false, size: 8 },
        { name: 'alphabet.txt', path: `${r}/alphabet.txt`, isDir: false, size: 26 },
      ],
    }));
  }],
  ['ori GET /api/files?path=src lists a folder', async (ws) => {
    const r = ws.root;
    assert.deepEqual(await ws.json('GET', '/api/files?path=src'), ok({
      path: `${r}/src`,
      entries: [
        { name: 'app.ts', path: `${r}/src/app.ts`, isDir: false, size: 26 },
        { name: 'util.ts', path: `${r}/src/util.ts`, isDir: false, size: 48 },
      ],
    }));
  }],
  ['ori GET /api/file reads a text file', async (ws) => {
    assert.deepEqual(await ws.json('GET', '/api/file?path=README.md'), ok({ path: `${ws.root}/README.md`, content: '# Hello\n' }));
  }],
  ['ori PUT /api/file writes (folders made), and GET reads it back', async (ws) => {
    assert.deepEqual(
      await ws.json('PUT', '/api/file?path=notes/new.md', { body: { content: 'written\n' } }),
      ok({ path: `${ws.root}/notes/new.md`, status: 'saved' }),
    );
    assert.equal(await ws.text('notes/new.md'), 'written\n');
    assert.deepEqual(await ws.json('GET', '/api/file?path=notes/new.md'), ok({ path: `${ws.root}/notes/new.md`, content: 'written\n' }));
  }],
  ['ori GET /api/raw with Range is 206 with exactly those bytes', async (ws) => {
    const response = await ws.call('GET', '/api/raw?path=alphabet.txt', { headers: { range: 'bytes=2-5' } });
    assert.equal(response.status, 206);
    assert.equal(response.headers.get('content-range'), 'bytes 2-5/26');
    assert.equal(response.headers.get('content-length'), '4');
    assert.equal(response.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.deepEqual(new Uint8Array(await response.arrayBuffer()), new TextEncoder().encode('cdef'));
  }],
  ['ori GET /api/raw without Range is 200 with the whole file; a range past the end is 416', async (ws) => {
    const whole = await ws.call('GET', '/api/raw?path=alphabet.txt');
    assert.equal(whole.status, 200);
    assert.equal(whole.headers.get('accept-ranges'), 'bytes');
    assert.equal(await whole.text(), SEED['alphabet.txt']);
    const past = await ws.call('GET', '/api/raw?path=alphabet.txt', { headers: { range: 'bytes=40-50' } });
    assert.equal(past.status, 416);
    assert.equal(past.headers.get('content-range'), 'bytes */26');
    await past.body?.cancel();
  }],
  ['ori GET /api/files/search finds files by name', async (ws) => {
    assert.deepEqual(
      await ws.json('GET', '/api/files/search?q=app'),
      ok({ root: ws.root, files: [{ name: 'app.ts', path: `${ws.root}/src/app.ts`, relPath: 'src/app.ts' }] }),
    );
  }],
  ['ori: ../outside is 403 { error }, listing and reading', async (ws) => {
    assert.deepEqual(await ws.json('GET', '/api/files?path=../outside'), oriError(403, OUTSIDE));
    assert.deepEqual(await ws.json('GET', '/api/file?path=../outside/secret.txt'), oriError(403, OUTSIDE));
    assert.deepEqual(await ws.json('PUT', '/api/file?path=../outside/secret.txt', { body: { content: 'x' } }), oriError(403, OUTSIDE));
  }],
  // Intentic
  ['Intentic GET /workspace/tree', async (ws) => {
    assert.deepEqual(await ws.json('GET', '/workspace/tree'), ok({
      root: ws.root,
      tree: [
        { name: 'docs', path: 'docs', type: 'dir', children: [{ name: 'guide.md', path: 'docs/guide.md', type: 'file', size: 32 }] },
        {
          name: 'src',
          path: 'src',
          type: 'dir',
          children: [
            { name: 'app.ts', path: 'src/app.ts', type: 'file', size: 26 },
            { name: 'util.ts', path: 'src/util.ts', type: 'file', size: 48 },
          ],
        },
        { name: 'README.md', path: 'README.md', type: 'file', size: 8 },
        { name: 'alphabet.txt', path: 'alphabet.txt', type: 'file', size: 26 },
      ],
      hidden: 0,
    }));
  }],
  ['Intentic GET /workspace/children', async (ws) => {
    assert.deepEqual(await ws.json('GET', '/workspace/children?path=src'), ok({
      entries: [
        { name: 'app.ts', path: 'src/app.ts', type: 'file', size: 26 },
        { name: 'util.ts', path: 'src/util.ts', type: 'file', size: 48 },
      ],
      hidden: 0,
    }));
  }],
  ['Intentic GET /workspace/file', async (ws) => {
    assert.deepEqual(await ws.json('GET', '/workspace/file?path=src/app.ts'), ok({
      present: true,
      path: 'src/app.ts',
      content: SEED['src/app.ts'],
      size: 26,
      offset: 0,
      bytes: 26,
      shared: true,
    }));
  }],
  ['Intentic POST /workspace/dir makes the folder and its parents', async (ws) => {
    assert.deepEqual(await ws.json('POST', '/workspace/dir', { body: { path: 'made/deep' } }), ok({ ok: true }));
    assert.equal((await ws.fs.stat(`${ws.root}/made/deep`)).type, 'dir');
    assert.deepEqual(await ws.json('GET', '/workspace/children?path=made'), ok({ entries: [{ name: 'deep', path: 'made/deep', type: 'dir' }], hidden: 0 }));
  }],
  ['Intentic POST /workspace/dir with an empty path is BAD_REQUEST with the schema issue', async (ws) => {
    assert.deepEqual(await ws.json('POST', '/workspace/dir', { body: { path: '' } }), {
      status: 400,
      body: {
        defined: false,
        code: 'BAD_REQUEST',
        status: 400,
        message: 'invalid body: path: path is empty',
        data: { issues: [{ path: ['path'], message: 'path is empty', code: 'too_small' }] },
      },
    });
  }],
  ['Intentic POST /workspace/move renames and moves into a new folder', async (ws) => {
    assert.deepEqual(await ws.json('POST', '/workspace/move', { body: { from: 'README.md', to: 'README.txt' } }), ok({ ok: true }));
    assert.deepEqual(await ws.json('POST', '/workspace/move', { body: { from: 'docs/guide.md', to: 'archive/guide.md' } }), ok({ ok: true }));
    assert.equal(await ws.text('README.txt'), SEED['README.md']);
    assert.equal(await ws.text('archive/guide.md'), SEED['docs/guide.md']);
    await assert.rejects(ws.fs.stat(`${ws.root}/README.md`), { code: 'not-found' });
    await assert.rejects(ws.fs.stat(`${ws.root}/docs/guide.md`), { code: 'not-found' });
  }],
  ['Intentic GET /workspace/search mode=find: one hit per line, spans, context', async (ws) => {
    const { status, body } = await ws.json('GET', '/workspace/search?query=needle&mode=find');
    const { freshness, ...answer } = body as { freshness: { state: string } };
    assert.equal(status, 200);
    // The first search may be answered while the engine still lists the files (a scan), or after: same hits.
    assert.ok(['building', 'ready'].includes(freshness.state), freshness.state);
    assert.deepEqual(answer, {
      mode: 'find',
      total: 2,
      files: 2,
      shown: 2,
      groups: [
        { path: 'docs/guide.md', score: 1, hits: [{ line: 1, text: 'The needle is here.', spans: [{ start: 4, end: 10 }], tags: [{ kind: 'text' }] }] },
        {
          path: 'src/util.ts',
          score: 0.5,
          hits: [{ line: 2, text: '  return "needle";', spans: [{ start: 10, end: 16 }], tags: [{ kind: 'text' }], context: 'helper (fn)' }],
        },
      ],
      truncated: false,
    });
  }],
  ['Intentic: ../outside is BAD_REQUEST for a file, an empty listing for children', async (ws) => {
    assert.deepEqual(await ws.json('GET', '/workspace/file?path=../outside/secret.txt'), orpcError(400, 'BAD_REQUEST', OUTSIDE));
    assert.deepEqual(await ws.json('POST', '/workspace/dir', { body: { path: '../outside/new' } }), orpcError(400, 'BAD_REQUEST', OUTSIDE));
    assert.deepEqual(await ws.json('GET', '/workspace/children?path=../outside'), ok({ entries: [], hidden: 0 }));
  }],
  // workspace-files
  ['workspace-files GET /workspace-files/stat', async (ws) => {
    const { version } = await ws.fs.stat(`${ws.root}/README.md`);
    assert.deepEqual(await ws.json('GET', '/workspace-files/stat?path=README.md'), ok({ absolutePath: `${ws.root}/README.md`, version, bytes: 8 }));
  }],
  ['workspace-files GET /workspace-files/read pages lines', async (ws) => {
    const { version } = await ws.fs.stat(`${ws.root}/src/util.ts`);
    assert.deepEqual(await ws.json('GET', '/workspace-files/read?path=src/util.ts'), ok({
      absolutePath: `${ws.root}/src/util.ts`,
      version,
      bytes: 48,
      offset: 1,
      text: 'export function helper() {\n  return "needle";\n}',
      lines: 3,
      eof: true,
    }));
  }],
  ['workspace-files GET /workspace-files/list', async (ws) => {
    assert.deepEqual(await ws.json('GET', '/workspace-files/list?path=src'), ok({
      path: 'src',
      entries: [
        { name: 'app.ts', type: 'file', size: 26 },
        { name: 'util.ts', type: 'file', size: 48 },
      ],
      truncated: false,
    }));
  }],
  ['workspace-files: ../outside is 403 workspace-file/outside-workspace', async (ws) => {
    assert.deepEqual(
      await ws.json('GET', '/workspace-files/stat?path=../outside/secret.txt'),
      filesError(403, 'workspace-file/outside-workspace', OUTSIDE, { path: '../outside/secret.txt' }),
    );
  }],
  // WebSocket routes without an upgrader or a pty, as on Workers, Bun and Deno
  ['terminal routes answer 501 without a pty', async (ws) => {
    const upgrade = { upgrade: 'websocket', connection: 'Upgrade' };
    const none = oriError(501, 'terminals are not available on this runtime');
    assert.deepEqual(await ws.json('GET', '/ws/terminal', { headers: upgrade }), none);
    assert.deepEqual(await ws.json('GET', '/terminals/main', { headers: upgrade }), none);
    assert.deepEqual(await ws.json('POST', '/terminals', { body: { name: 'main' } }), none);
  }],
  ['/ws answers 426 without an upgrader', async (ws) => {
    const response = await ws.call('GET', '/ws', { headers: { upgrade: 'websocket', connection: 'Upgrade' } });
    assert.equal(response.status, 426);
    assert.equal(response.headers.get('upgrade'), 'websocket');
    assert.deepEqual(await response.json(), { error: 'this endpoint needs a WebSocket upgrade' });
  }],
];

const runtime = process.versions.bun ? `bun ${process.versions.bun}` : process.versions.deno ? `deno ${process.versions.deno}` : `node ${process.versions.node}`;
let passed = 0;
let failed = 0;
const started = performance.now();
for (const backend of BACKENDS) {
  for (const [name, run] of CHECKS) {
    const ws = await openWorkspace(backend);
    try {
      await run(ws);
      passed++;
    } catch (error) {
      failed++;
      process.stdout.write(`FAIL [${backend.name}] ${name}\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    } finally {
      await ws.cleanup();
    }
  }
}
process.stdout.write(`${runtime}: ${Math.round(performance.now() - started)} ms\n${passed} passed, ${failed} failed\n`);
// Explicit: nothing the app started may keep the process alive past its answer.
process.exit(failed === 0 ? 0 : 1);
