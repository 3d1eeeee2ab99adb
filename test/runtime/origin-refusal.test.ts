/**
 * A browser page of a foreign origin that tries to act (a "simple" `text/plain` POST needs no preflight) is
 * refused with 403 before anything is touched, and the refusal is rendered in the dialect of the route it hit:
 * an oRPC error body on Intentic's contract calls (so its client reads the message), `{error}` on Intentic's
 * byte routes and on ori's and the terminals' routes. Sent over a real socket to a real server, as a browser does.
 */
import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { startNodeServer, type NodeServer } from '../../runtime/node/server.ts';
import { intenticClient, orpcError } from '../support/intentic-contract.ts';
import { TEST_TOKEN, tempWorkspace, type TempWorkspace } from '../support/workspace.ts';

const EVIL = 'https://evil.example';
const FORBIDDEN_ORPC = { defined: false, code: 'FORBIDDEN', status: 403, message: 'origin not allowed' };
const FORBIDDEN_PLAIN = { error: 'origin not allowed' };

describe('a cross-origin write is refused in the dialect of its route', () => {
  let workspace: TempWorkspace;
  let server: NodeServer;
  beforeAll(async () => {
    workspace = await tempWorkspace({ 'a.txt': 'alpha' });
    server = await startNodeServer({ root: workspace.root, auth: { token: TEST_TOKEN }, host: '127.0.0.1', port: 0, watch: false });
  });
  afterAll(async () => {
    await server?.close();
    await workspace?.cleanup();
  });

  /** What a page on another site can send without a preflight: a text/plain body, with the user's token. */
  const crossOriginPost = (path: string, body: string, method = 'POST') =>
    fetch(`${server.url}${path}`, {
      method,
      body,
      headers: { origin: EVIL, 'content-type': 'text/plain', 'x-intentic-control': TEST_TOKEN },
    });

  it.each([
    ['POST', '/workspace/dir', { path: 'pwned' }],
    ['POST', '/workspace/move', { from: 'a.txt', to: 'pwned.txt' }],
    ['DELETE', '/workspace/entry', { path: 'a.txt' }],
    ['POST', '/workspace/agents', { agent: 'pwned' }],
    ['POST', '/workspace/no-such-call', {}],
  ])('%s %s (an Intentic call): an oRPC FORBIDDEN body, nothing touched', async (method, path, body) => {
    const before = (await readdir(workspace.root)).sort();
    const res = await crossOriginPost(path, JSON.stringify(body), method);
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual(FORBIDDEN_ORPC);
    expect((await readdir(workspace.root)).sort()).toEqual(before);
  });

  it('reads as FORBIDDEN with its message through Intentic’s own client; the same call from no browser goes through', async () => {
    const fromEvil = intenticClient({ url: server.url }, { headers: { origin: EVIL } });
    const refused = await orpcError(fromEvil.workspace.mkdir({ path: 'pwned' }));
    expect([refused.status, refused.code, refused.message, refused.defined]).toEqual([403, 'FORBIDDEN', 'origin not allowed', false]);
    expect(await intenticClient({ url: server.url }).workspace.mkdir({ path: 'made-by-a-tool' })).toEqual({ ok: true });
    expect(await readdir(workspace.root)).not.toContain('pwned');
  });

  it.each([
    ['/workspace/upload?path=pwned.txt', 'bytes'],
    ['/terminals', JSON.stringify({ name: 'evil', command: 'touch pwned' })],
  ])('POST %s (a plain route): {error}, nothing touched', async (path, body) => {
    const before = (await readdir(workspace.root)).sort();
    const res = await crossOriginPost(path, body);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual(FORBIDDEN_PLAIN);
    expect((await readdir(workspace.root)).sort()).toEqual(before);
  });

  it('PUT /api/file (ori): {error}, nothing written', async () => {
    const res = await crossOriginPost('/api/file?path=pwned.txt', JSON.stringify({ content: 'x' }), 'PUT');
    expect([res.status, await res.json()]).toEqual([403, FORBIDDEN_PLAIN]);
    expect(await readdir(workspace.root)).not.toContain('pwned.txt');
  });
});
