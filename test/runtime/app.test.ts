import { readdir } from 'node:fs/promises';
import { Router } from 'itty-router';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../../adapters/fs/memory-file-system.ts';
import { createWorkspaceApp } from '../../runtime/app.ts';
import { nodeApp, q, request, tempWorkspace, TEST_TOKEN, type TempWorkspace } from '../support/workspace.ts';

describe('createWorkspaceApp', () => {
  let ws: TempWorkspace;
  beforeEach(async () => {
    ws = await tempWorkspace({ 'a.txt': 'alpha' });
  });
  afterEach(() => ws.cleanup());

  describe('auth', () => {
    it('refuses a request without a token with 401 in the ori shape', async () => {
      const res = await nodeApp(ws.root).fetch(new Request('http://localhost/api/files'));
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.json()).toEqual({ error: 'missing or invalid token' });
    });

    it('refuses a wrong token, and a token that is a prefix of the real one', async () => {
      for (const token of ['nope', TEST_TOKEN.slice(0, -1), TEST_TOKEN + 'x', '']) {
        const res = await nodeApp(ws.root).fetch(request('/api/files', { headers: { authorization: `Bearer ${token}` } }));
        expect(res.status).toBe(401);
      }
    });

    it('accepts Authorization: Bearer, x-intentic-control, and ?token= on GET', async () => {
      const app = nodeApp(ws.root);
      const bearer = await app.fetch(request('/api/files'));
      const control = await app.fetch(
        new Request('http://localhost/api/files', { headers: { 'x-intentic-control': TEST_TOKEN } }),
      );
      const query = await app.fetch(new Request(`http://localhost/api/files?token=${TEST_TOKEN}`));
      expect([bearer.status, control.status, query.status]).toEqual([200, 200, 200]);
    });

    it('does not accept ?token= on a write, so a link cannot cause one', async () => {
      const res = await nodeApp(ws.root).fetch(
        new Request(`http://localhost/api/file?path=b.txt&token=${TEST_TOKEN}`, {
          method: 'PUT',
          body: JSON.stringify({ content: 'x' }),
        }),
      );
      expect(res.status).toBe(401);
      const listing = await (await nodeApp(ws.root).fetch(request('/api/files'))).json();
      expect(listing.entries.map((e: { name: string }) => e.name)).toEqual(['a.txt']);
    });

    it('needs no token with auth disabled', async () => {
      const res = await nodeApp(ws.root, { auth: { disabled: true } }).fetch(new Request('http://localhost/api/files'));
      expect(res.status).toBe(200);
    });
  });

  it('answers /healthz without a token', async () => {
    const res = await nodeApp(ws.root).fetch(new Request('http://localhost/healthz'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it('answers unknown routes with a JSON 404', async () => {
    for (const path of ['/nope', '/api', '/api/files/extra', '/api/filez']) {
      const res = await nodeApp(ws.root).fetch(request(path));
      expect(res.status, path).toBe(404);
      expect(await res.json()).toEqual({ error: 'not found' });
    }
    const wrongMethod = await nodeApp(ws.root).fetch(request('/api/files', { method: 'DELETE' }));
    expect(wrongMethod.status).toBe(404);
  });

  describe('CORS', () => {
    const origin = 'https://ide.example';

    it('answers a preflight from an allowed origin with the grants', async () => {
      const res = await nodeApp(ws.root, { allowedOrigins: [origin] }).fetch(
        new Request('http://localhost/api/file', {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization, content-type' },
        }),
      );
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
      expect(res.headers.get('access-control-allow-methods')).toContain('PUT');
      expect(res.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
    });

    it('refuses a preflight from another origin', async () => {
      const res = await nodeApp(ws.root, { allowedOrigins: [origin] }).fetch(
        new Request('http://localhost/api/file', { method: 'OPTIONS', headers: { origin: 'https://evil.example' } }),
      );
      expect(res.status).toBe(403);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('grants actual responses to allowed origins only', async () => {
      const app = nodeApp(ws.root, { allowedOrigins: [origin] });
      const allowed = await app.fetch(request('/api/files', { headers: { origin } }));
      expect(allowed.headers.get('access-control-allow-origin')).toBe(origin);
      expect(allowed.headers.get('access-control-expose-headers')).toContain('content-range');
      const other = await app.fetch(request('/api/files', { headers: { origin: 'https://evil.example' } }));
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('refuses a cross-origin write that needs no preflight (a text/plain POST), touching nothing', async () => {
      // Under --no-auth, a page on any site could otherwise start a terminal or write a file: the browser
      // sends a "simple" request without asking and only hides the answer.
      const app = nodeApp(ws.root, { auth: { disabled: true }, allowedOrigins: [origin] });
      const before = (await readdir(ws.root)).sort();
      // Each refusal in its route's dialect: Intentic's contract calls answer an oRPC error body.
      const intenticRefusal = { defined: false, code: 'FORBIDDEN', status: 403, message: 'origin not allowed' };
      for (const [method, path, body, refusal] of [
        ['POST', '/terminals', JSON.stringify({ name: 'evil', command: 'touch pwned' }), { error: 'origin not allowed' }],
        ['PUT', `/api/file?path=pwned.txt`, JSON.stringify({ content: 'x' }), { error: 'origin not allowed' }],
        ['POST', '/workspace/dir', JSON.stringify({ path: 'pwned' }), intenticRefusal],
      ] as const) {
        const res = await app.fetch(
          new Request(`http://127.0.0.1${path}`, { method, body, headers: { origin: 'https://evil.example', 'content-type': 'text/plain' } }),
        );
        expect(res.status).toBe(403);
        expect(await res.json()).toEqual(refusal);
      }
      expect((await readdir(ws.root)).sort()).toEqual(before);
      // The same write from an allowed origin, from the server's own origin, or from no browser goes through.
      const write = (headers: Record<string, string>) =>
        app.fetch(new Request('http://127.0.0.1/api/file?path=ok.txt', { method: 'PUT', body: JSON.stringify({ content: 'y' }), headers }));
      expect((await write({ origin })).status).toBe(200);
      expect((await write({ origin: 'http://127.0.0.1', host: '127.0.0.1' })).status).toBe(200);
      expect((await write({})).status).toBe(200);
      // Reads stay open to any origin (CORS decides what the page may see).
      expect((await app.fetch(new Request('http://127.0.0.1/api/files', { headers: { origin: 'https://evil.example' } }))).status).toBe(200);
    });

    it('refuses a cross-origin WebSocket upgrade before routing', async () => {
      const res = await nodeApp(ws.root).fetch(
        request(`/ws/terminal`, { headers: { upgrade: 'websocket', origin: 'https://evil.example' } }),
      );
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ error: 'origin not allowed' });
    });
  });

  describe('basePath and mounting', () => {
    it('serves the whole API under a prefix and nothing outside it', async () => {
      const app = nodeApp(ws.root, { basePath: '/sandbox/abc/' });
      const inside = await app.fetch(request('/sandbox/abc/api/file' + q({ path: 'a.txt' })));
      expect(inside.status).toBe(200);
      expect(await inside.json()).toEqual({ path: `${ws.root}/a.txt`, content: 'alpha' });
      expect((await app.fetch(request('/sandbox/abc/healthz'))).status).toBe(200);
      expect((await app.fetch(request('/api/file' + q({ path: 'a.txt' })))).status).toBe(404);
    });

    it('mounts inside another fetch router under /sandbox/:id', async () => {
      const sandboxes = new Map([
        ['one', createWorkspaceApp({ fs: new MemoryFileSystem({ '/one/x.md': 'in one' }), root: '/one', auth: { disabled: true }, basePath: '/sandbox/one' })],
        ['two', createWorkspaceApp({ fs: new MemoryFileSystem({ '/two/x.md': 'in two' }), root: '/two', auth: { disabled: true }, basePath: '/sandbox/two' })],
      ]);
      const host = Router()
        .get('/', () => new Response('host home'))
        .all('/sandbox/:id/*', (req) => sandboxes.get(req.params.id!)?.fetch(req) ?? new Response('no sandbox', { status: 404 }));

      const one = await host.fetch(new Request('http://gw/sandbox/one/api/file?path=x.md'));
      const two = await host.fetch(new Request('http://gw/sandbox/two/api/file?path=x.md'));
      expect(await one.json()).toEqual({ path: '/one/x.md', content: 'in one' });
      expect(await two.json()).toEqual({ path: '/two/x.md', content: 'in two' });
      expect(await (await host.fetch(new Request('http://gw/'))).text()).toBe('host home');
      expect((await host.fetch(new Request('http://gw/sandbox/three/api/files'))).status).toBe(404);
    });
  });
});
