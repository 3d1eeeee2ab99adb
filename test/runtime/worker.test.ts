import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkerBundle } from '../../runtime/worker-build.ts';
import { buildZip } from '../support/zip-writer.ts';
import { mintScopedToken } from '../../core/auth/scoped-token.ts';

/**
 * The Workers entry for real: bundled with the production build flags and run in workerd through miniflare, each
 * workspace a Durable Object with SQLite storage at `/w/<id>/`. Three workers from the same bundle, differing only
 * in bindings: token auth with per-workspace tokens (the entry dispatchFetch talks to), no token configured (must
 * refuse, not run open), and explicit WORKSPACE_NO_AUTH.
 */

// Miniflare refuses a script outside its working folder, so the bundle stays under the project.
const SCRIPT = 'dist/test-worker/worker.js';
const COMPATIBILITY_DATE = '2026-04-26'; // as wrangler.toml
const ORIGIN = 'https://ide.example';
const BASE = 'http://localhost';
/** The workspace most tests use; others name their own. */
const WS = '/w/demo';
const SECRET = 'per-workspace-secret';

let mf: Miniflare;

beforeAll(async () => {
  await buildWorkerBundle(SCRIPT);
  const worker = {
    scriptPath: SCRIPT,
    modules: true,
    compatibilityDate: COMPATIBILITY_DATE,
    durableObjects: { WORKSPACES: { className: 'WorkspaceObject', useSQLite: true } },
  };
  mf = new Miniflare({
    workers: [
      {
        ...worker,
        name: 'token',
        bindings: {
          WORKSPACE_TOKEN: 'tok',
          WORKSPACE_TOKEN_SECRET: SECRET,
          WORKSPACE_ALLOW_ORIGIN: ` ${ORIGIN} , https://other.example`,
          WORKSPACE_MAX_FILE_BYTES: String(1024 * 1024),
        },
      },
      // dispatchFetch picks a worker by route; unrouted requests go to the first one.
      { ...worker, name: 'unconfigured', routes: ['unconfigured.test/*'] },
      { ...worker, name: 'open', routes: ['open.test/*'], bindings: { WORKSPACE_NO_AUTH: 'true' } },
    ],
  });
  await mf.ready;
});

afterAll(async () => {
  await mf?.dispose();
});

const auth = { authorization: 'Bearer tok' };

function call(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return mf.dispatchFetch(BASE + WS + path, init);
}

describe('Workers entry in workerd (WORKSPACE_TOKEN set)', () => {
  it('GET /healthz needs no token', async () => {
    const response = await call('/healthz');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });

  it('GET /api/files without a token is 401 in the ori error shape', async () => {
    const response = await call('/api/files');
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ error: 'missing or invalid token' });
  });

  it('GET /api/files with a wrong token is 401', async () => {
    const response = await call('/api/files', { headers: { authorization: 'Bearer tok2' } });
    expect(response.status).toBe(401);
    await response.arrayBuffer();
  });

  it('GET /api/files lists the welcome README at its exact byte size', async () => {
    const readme = await call('/api/file?path=README.md', { headers: auth });
    expect(readme.status).toBe(200);
    const { path, content } = (await readme.json()) as { path: string; content: string };
    expect(path).toBe('/workspace/README.md');
    expect(content).toMatch(/^# /);
    const size = new TextEncoder().encode(content).byteLength;
    expect(size).toBeGreaterThan(content.length); // it holds non-ASCII: the listing must count bytes, not chars

    const response = await call('/api/files', { headers: auth });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      path: '/workspace',
      entries: [{ name: 'README.md', path: '/workspace/README.md', isDir: false, size }],
    });
  });

  it('PUT /api/file saves (creating parents), GET /api/file returns it exactly', async () => {
    const put = await call('/api/file?path=notes/a.txt', {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'hello 🌍' }),
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ path: '/workspace/notes/a.txt', status: 'saved' });

    const get = await call('/api/file?path=notes/a.txt', { headers: auth });
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual({ path: '/workspace/notes/a.txt', content: 'hello 🌍' });
  });

  it('/workspace/search works across requests: what one request writes the next finds, and pages follow each other', async () => {
    const H = { ...auth, 'x-intentic-control': 'tok' };
    // Searched before anything is written: what the object's engine knows then must follow the writes after it.
    expect((await call('/workspace/search?query=welcome&mode=find', { headers: H })).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      const put = await call(`/api/file?path=src/paged${i}.ts`, {
        method: 'PUT',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ content: `export function pagedWidget${i}() {\n  return 'pagedToken';\n}\n` }),
      });
      expect(put.status).toBe(200);
    }
    const search = async (params: Record<string, string>) => {
      const res = await call(`/workspace/search?${new URLSearchParams(params)}`, { headers: H });
      return { status: res.status, body: (await res.json()) as { groups: { path: string }[]; cursor?: string; total: number; freshness: unknown; features?: string[] } };
    };
    const paths: string[] = [];
    let page = await search({ query: 'pagedToken', mode: 'find', limit: '2' });
    expect(page.status).toBe(200);
    expect(page.body.freshness).toEqual({ state: 'fresh', ageMs: 0 }); // the object's index answered, caught up
    for (;;) {
      paths.push(...page.body.groups.map((group) => group.path));
      if (page.body.cursor === undefined) break;
      page = await search({ query: 'pagedToken', mode: 'find', limit: '2', after: page.body.cursor });
      expect(page.status).toBe(200);
    }
    expect(paths).toEqual([0, 1, 2, 3, 4].map((i) => `src/paged${i}.ts`));
    const def = await search({ query: 'pagedWidget3', mode: 'def' });
    expect(def.body.groups.map((group) => group.path)).toEqual(['src/paged3.ts']);
    const q = await search({ query: 'Welcome workers' });
    expect(q.status).toBe(200);
    expect(q.body.groups.map((group) => group.path)).toEqual(['README.md']);
    expect(q.body.features).toEqual(['sem: no embeddings endpoint configured']);
    expect((await search({ query: 'pagedToken', after: '2.AAAAAAAAAAAAAAAAAAAAAA' })).status).toBe(400);
  });

  it('GET /api/raw honours Range', async () => {
    const size = new TextEncoder().encode('hello 🌍').byteLength; // 10
    const response = await call('/api/raw?path=notes/a.txt', { headers: { ...auth, range: 'bytes=0-4' } });
    expect(response.status).toBe(206);
    expect(response.headers.get('content-range')).toBe(`bytes 0-4/${size}`);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.text()).toBe('hello');
  });

  it('media tickets work on workerd (crypto.subtle HMAC): a ranged stream with the ticket alone, 401 without', async () => {
    const minted = await call('/workspace/media-ticket', {
      method: 'POST',
      headers: { 'x-intentic-control': 'tok', 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'README.md' }),
    });
    expect(minted.status).toBe(200);
    const { ticket } = (await minted.json()) as { ticket: string };
    const media = await call(`/workspace/media?path=README.md&ticket=${encodeURIComponent(ticket)}`, { headers: { range: 'bytes=0-8' } });
    expect([media.status, media.headers.get('cache-control'), await media.text()]).toEqual([206, 'no-store', '# Welcome']);
    const refused = await call('/workspace/media?path=README.md&ticket=1.x');
    expect([refused.status, await refused.json()]).toEqual([401, { error: 'malformed media ticket' }]);
  });

  it('GET /ws/terminal answers 501: no terminals on Workers', async () => {
    const response = await call('/ws/terminal', {
      headers: {
        ...auth,
        upgrade: 'websocket',
        connection: 'Upgrade',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        'sec-websocket-version': '13',
      },
    });
    expect(response.status).toBe(501);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ error: expect.stringMatching(/\S/) });
  });

  it('the named terminals answer 501: no pty on Workers', async () => {
    const list = await call('/terminals', { headers: auth });
    expect(list.status).toBe(501);
    expect(await list.json()).toEqual({ error: 'terminals are not available on this runtime' });
    const create = await call('/terminals', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'dev', command: 'true' }),
    });
    expect(create.status).toBe(501);
    await create.arrayBuffer();
  });

  it('/ws upgrades in the workspace object (hibernation API): files and search over the protocol, a pty needs a machine', async () => {
    const refused = await call('/ws', { headers: { upgrade: 'websocket' } });
    expect([refused.status, await refused.json()]).toEqual([401, { error: 'missing or invalid token' }]);
    const plain = await call('/ws', { headers: auth });
    expect(plain.status).toBe(426);
    await plain.arrayBuffer();

    const upgraded = await call('/ws?token=tok', { headers: { upgrade: 'websocket' } });
    expect(upgraded.status).toBe(101);
    const ws = upgraded.webSocket!;
    type Reply = { id: number; ok: boolean; result?: unknown; error?: string };
    const waiting = new Map<number, (reply: Reply) => void>();
    ws.addEventListener('message', (event) => {
      const frame = JSON.parse(String(event.data)) as Reply;
      waiting.get(frame.id)?.(frame);
    });
    ws.accept();
    let nextId = 1;
    const rpc = (command: string, args: Record<string, unknown>) =>
      new Promise<Reply>((resolve) => {
        const id = nextId++;
        waiting.set(id, resolve);
        ws.send(JSON.stringify({ id, command, args }));
      });
    expect(await rpc('write_file', { path: 'from-ws.txt', content: 'written over /ws' })).toMatchObject({ ok: true });
    expect(await rpc('read_file', { path: 'from-ws.txt' })).toEqual({ id: 2, ok: true, result: 'written over /ws' });
    const http = await call('/api/file?path=from-ws.txt', { headers: auth });
    expect(await http.json()).toEqual({ path: '/workspace/from-ws.txt', content: 'written over /ws' });
    const found = (await rpc('search_in_files', { path: '.', query: 'written over' })) as { ok: boolean; result: { path: string }[] | { results: { path: string }[] } };
    expect(found).toMatchObject({ ok: true });
    expect(JSON.stringify(found.result)).toContain('from-ws.txt');
    // extract_zip on the edge: parsed and inflated with Web APIs (adapters/archive/web-zip-adapter.ts).
    const zip = buildZip([{ name: 'unzipped/a.txt', data: 'from the archive '.repeat(100) }, { name: 'unzipped/b/c.txt', data: 'deeper' }]);
    const extracted = await rpc('extract_zip', { zipContent: Buffer.from(zip).toString('base64'), destDir: 'x' });
    expect(extracted).toMatchObject({ ok: true });
    expect((await rpc('read_file', { path: 'x/unzipped/b/c.txt' })).result).toBe('deeper');
    const pty = await rpc('pty_spawn', { sessionId: 'edge' });
    expect(pty.ok).toBe(false);
    ws.close(1000, 'done');
  });

  it('GET /capabilities: a Worker upgrades WebSockets and sees every change (all go through the API), but has no terminals, commands, git or chat', async () => {
    const response = await call('/capabilities', { headers: auth });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ version: '0.1.0', webSockets: true, terminals: false, commands: false, git: false, chat: false, watching: true });
  });

  it('serves the panel embedded in the bundle: the page, its hashed script, and the API reference', async () => {
    const page = await call('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await page.text();
    const script = /src="panel\/(app-[A-Za-z0-9]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const bundle = await call(`/panel/${script}`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await bundle.text()).length).toBeGreaterThan(1000);
    const docs = await call('/docs');
    expect(docs.status).toBe(200);
    expect(await docs.text()).toMatch(/<script src="panel\/rapidoc-[A-Za-z0-9_-]+\.js"><\/script>/);
  });

  it('CORS follows WORKSPACE_ALLOW_ORIGIN', async () => {
    const allowed = await call('/api/files', { method: 'OPTIONS', headers: { origin: ORIGIN } });
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    await allowed.arrayBuffer();

    const refused = await call('/api/files', { method: 'OPTIONS', headers: { origin: 'https://evil.example' } });
    expect(refused.status).toBe(403);
    await refused.arrayBuffer();
  });
});

describe('Workers entry without WORKSPACE_TOKEN', () => {
  function callWorker(host: 'unconfigured' | 'open', path: string, headers: Record<string, string> = {}) {
    return mf.dispatchFetch(`http://${host}.test${WS}${path}`, { headers });
  }

  it('still serves the panel page, which then shows the 503 message', async () => {
    const page = await callWorker('unconfigured', '/');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="panel" class="panel"></div>');
  });

  it('refuses every API request with 503 explaining what to set, even with a guessed token', async () => {
    for (const headers of [{}, { authorization: 'Bearer tok' }] as Record<string, string>[]) {
      const response = await callWorker('unconfigured', '/api/files', headers);
      expect(response.status).toBe(503);
      const body = (await response.json()) as { error: string };
      expect(Object.keys(body)).toEqual(['error']);
      expect(body.error).toContain('WORKSPACE_TOKEN');
    }
  });

  it('still answers /healthz', async () => {
    const response = await callWorker('unconfigured', '/healthz');
    expect(response.status).toBe(200);
    await response.arrayBuffer();
  });

  it('runs open only when WORKSPACE_NO_AUTH is "true"', async () => {
    const response = await callWorker('open', '/api/files');
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ path: '/workspace' });
  });
});

describe('one Durable Object per workspace', () => {
  const at = (path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) => mf.dispatchFetch(BASE + path, init);
  const put = (path: string, content: string, headers: Record<string, string> = auth) =>
    at(path, { method: 'PUT', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ content }) });

  it('the Worker itself answers a short index and liveness; no workspace lives outside /w/<id>/', async () => {
    const index = await at('/');
    expect([index.status, await index.json()]).toEqual([200, expect.objectContaining({ name: 'workspace-api', workspaces: '/w/{id}/' })]);
    expect((await at('/healthz')).status).toBe(200);
    const outside = await at('/api/files', { headers: auth });
    expect([outside.status, await outside.json()]).toEqual([404, { error: 'not found' }]);
  });

  it('a malformed workspace id is 400 with the rule, and nothing is made', async () => {
    for (const id of ['-lead', 'a.b', 'x'.repeat(65), '%E2%9C%93', '', '%ZZ']) {
      const response = await at(`/w/${id}/api/files`, { headers: auth });
      expect([id, response.status]).toEqual([id, 400]);
      expect(((await response.json()) as { error: string }).error).toContain('workspace id');
    }
  });

  it('the change feed streams from the workspace object: a write through another request arrives as its frame', async () => {
    const feed = await at('/w/feed/workspace-files/changes', { headers: auth });
    expect([feed.status, feed.headers.get('content-type')]).toEqual([200, 'text/event-stream']);
    const reader = feed.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const until = async (wanted: string) => {
      while (!text.includes(wanted)) {
        const { done, value } = await reader.read();
        if (done) throw new Error(`the stream ended before ${wanted}`);
        text += decoder.decode(value, { stream: true });
      }
    };
    await until('{"kind":"ready"}');
    expect((await put('/w/feed/api/file?path=seen.txt', 'a change')).status).toBe(200);
    await until('/workspace/seen.txt');
    expect(text).toMatch(/data: \{"kind":"change","change":\{"absolutePath":"\/workspace\/seen\.txt","version":"[^"]+"\}\}/);
    await reader.cancel();
  });

  it('bad input on the edge is a clear 4xx in the dialect’s shape, and nothing is written', async () => {
    const escaping = await at('/w/guarded/api/file?path=../../outside.txt', { headers: auth });
    expect([escaping.status, await escaping.json()]).toEqual([403, { error: expect.stringMatching(/outside/) }]);
    const escapingWrite = await put('/w/guarded/api/file?path=../escape.txt', 'no');
    expect(escapingWrite.status).toBe(403);
    await escapingWrite.arrayBuffer();
    // A JSON body over the 16 MiB cap, and an upload over this deployment's file cap (1 MiB here).
    const huge = await put('/w/guarded/api/file?path=huge.txt', 'x'.repeat(17 * 1024 * 1024));
    expect(huge.status).toBe(413);
    await huge.arrayBuffer();
    const upload = await at('/w/guarded/workspace/upload?path=big.bin', {
      method: 'POST',
      headers: { 'x-intentic-control': 'tok', 'content-type': 'application/octet-stream' },
      body: 'y'.repeat(1024 * 1024 + 1),
    });
    expect(upload.status).toBe(413);
    await upload.arrayBuffer();
    const listed = (await (await at('/w/guarded/api/files', { headers: auth })).json()) as { entries: { name: string }[] };
    expect(listed.entries.map((entry) => entry.name)).toEqual(['README.md']);
    const exactly = await at('/w/guarded/workspace/upload?path=fits.bin', {
      method: 'POST',
      headers: { 'x-intentic-control': 'tok', 'content-type': 'application/octet-stream' },
      body: 'z'.repeat(1024 * 1024),
    });
    expect(exactly.status).toBe(200);
    await exactly.arrayBuffer();
  });

  it('two workspace ids never see each other’s files; each starts with its own README', async () => {
    expect((await put('/w/alpha/api/file?path=only-alpha.txt', 'alpha’s')).status).toBe(200);
    const beta = await at('/w/beta/api/file?path=only-alpha.txt', { headers: auth });
    expect(beta.status).toBe(404);
    await beta.arrayBuffer();
    const listed = (await (await at('/w/beta/api/files', { headers: auth })).json()) as { entries: { name: string }[] };
    expect(listed.entries.map((entry) => entry.name)).toEqual(['README.md']);
    const alpha = await at('/w/alpha/api/file?path=only-alpha.txt', { headers: auth });
    expect(await alpha.json()).toEqual({ path: '/workspace/only-alpha.txt', content: 'alpha’s' });
  });

  it('a per-workspace token (HMAC of the id) opens that workspace and no other; the deployment token opens all', async () => {
    const own = createHmac('sha256', SECRET).update('gamma').digest('base64url');
    const opened = await at('/w/gamma/api/files', { headers: { authorization: `Bearer ${own}` } });
    expect(opened.status).toBe(200);
    await opened.arrayBuffer();
    const elsewhere = await at('/w/delta/api/files', { headers: { authorization: `Bearer ${own}` } });
    expect([elsewhere.status, await elsewhere.json()]).toEqual([401, { error: 'missing or invalid token' }]);
    const deployment = await at('/w/delta/api/files', { headers: auth });
    expect(deployment.status).toBe(200);
    await deployment.arrayBuffer();
  });

  it('a read token minted from a workspace\'s own token reads that workspace, writes nothing, and opens no other', async () => {
    const own = createHmac('sha256', SECRET).update('gamma').digest('base64url');
    const read = { authorization: `Bearer ${mintScopedToken(own, { kind: 'read' }, 60_000)}` };
    const listed = await at('/w/gamma/api/files', { headers: read });
    expect(listed.status).toBe(200);
    await listed.arrayBuffer();
    const write = await at('/w/gamma/api/file?path=scoped.txt', { method: 'PUT', headers: { ...read, 'content-type': 'application/json' }, body: '{"content":"x"}' });
    expect([write.status, await write.json()]).toEqual([403, { error: 'a read-only token cannot call PUT /w/gamma/api/file' }]);
    const absent = await at('/w/gamma/api/file?path=scoped.txt', { headers: auth });
    expect(absent.status).toBe(404);
    await absent.arrayBuffer();
    const elsewhere = await at('/w/delta/api/files', { headers: read });
    expect(elsewhere.status).toBe(401);
    await elsewhere.arrayBuffer();
  });

  it('200 parallel conditional writes to one file: exactly one wins its version, the file is wholly the winner’s', async () => {
    expect((await put('/w/race/api/file?path=contended.txt', 'start')).status).toBe(200);
    const tag = (await at('/w/race/api/file?path=contended.txt', { headers: auth })).headers.get('etag')!;
    const writers = Array.from({ length: 200 }, (_, i) => `writer ${i} `.repeat(50));
    const answers = await Promise.all(writers.map((content) => put('/w/race/api/file?path=contended.txt', content, { ...auth, 'if-match': tag })));
    const statuses = answers.map((answer) => answer.status);
    await Promise.all(answers.map((answer) => answer.arrayBuffer()));
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 412)).toHaveLength(199);
    const winner = writers[statuses.indexOf(200)]!;
    const final = await at('/w/race/api/file?path=contended.txt', { headers: auth });
    expect(await final.json()).toEqual({ path: '/workspace/contended.txt', content: winner });
  });
});

describe('a workspace survives a restart', () => {
  it('written, workerd stopped and started again on the same storage: the same bytes and version come back', async () => {
    const persist = await mkdtemp(join(tmpdir(), 'wsapi-do-persist-'));
    const start = () =>
      new Miniflare({
        scriptPath: SCRIPT,
        modules: true,
        compatibilityDate: COMPATIBILITY_DATE,
        durableObjects: { WORKSPACES: { className: 'WorkspaceObject', useSQLite: true } },
        durableObjectsPersist: persist,
        bindings: { WORKSPACE_TOKEN: 'tok' },
      });
    // Over 3 MiB: many chunks of the object's storage, none of them a whole SQLite value limit.
    const bytes = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31 + (i >>> 9)) & 0xff;
    let first: Miniflare | undefined = start();
    try {
      const written = await first.dispatchFetch(`${BASE}/w/kept/workspace/upload?path=data.bin`, {
        method: 'POST',
        headers: { ...auth, 'x-intentic-control': 'tok', 'content-type': 'application/octet-stream' },
        body: bytes,
      });
      expect(written.status).toBeLessThan(300);
      await written.arrayBuffer();
      const before = await first.dispatchFetch(`${BASE}/w/kept/api/raw?path=data.bin`, { headers: auth });
      const tag = before.headers.get('etag');
      await before.arrayBuffer();
      await first.dispose();
      first = undefined;

      const second = start();
      try {
        const after = await second.dispatchFetch(`${BASE}/w/kept/api/raw?path=data.bin`, { headers: auth });
        expect(after.status).toBe(200);
        expect(after.headers.get('etag')).toBe(tag);
        const read = Buffer.from(await after.arrayBuffer());
        expect(read.byteLength).toBe(bytes.byteLength);
        expect(read.equals(bytes)).toBe(true); // byte for byte (toEqual walks 3 MiB element by element)
      } finally {
        await second.dispose();
      }
    } finally {
      await first?.dispose();
      await rm(persist, { recursive: true, force: true });
    }
  });
});
