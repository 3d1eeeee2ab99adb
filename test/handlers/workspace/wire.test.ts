/**
 * Intentic's wire end to end: a real Node server on a real socket, driven by the client Intentic's browser
 * uses (oRPC's OpenAPILink over the global fetch), plus raw fetches where the bytes themselves are the point.
 */
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createORPCClient, ORPCError } from '@orpc/client';
import type { ContractRouterClient } from '@orpc/contract';
import { oc } from '@orpc/contract';
import { OpenAPILink } from '@orpc/openapi-client/fetch';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startNodeServer, type NodeServer } from '../../../runtime/node/server.ts';
import { intenticClient, orpcError } from '../../support/intentic-contract.ts';
import { allowLeftovers } from '../../support/leak-allowance.ts';
import { tempWorkspace, TEST_TOKEN, type TempWorkspace } from '../../support/workspace.ts';

const ORIGIN = 'https://ide.example';

// The server watches the root (@parcel/watcher 2.6.0), and these calls copy, move and delete watched folders. Its
// close then fails to unsubscribe the root ("Unable to remove watcher: Invalid argument": parcel asks inotify to
// drop a watch the kernel already dropped with its folder, and throws before forgetting the subscription), so
// parcel's watcher thread, with its wake-up pipe, lives on in this process. A known parcel bug, not fixable from
// here; only pipes are let through, everything else this file opens is still checked.
allowLeftovers('fds', '@parcel/watcher keeps its thread and wake-up pipe after a failed unsubscribe', /^pipe:/);

let ws: TempWorkspace;
let server: NodeServer;
beforeAll(async () => {
  ws = await tempWorkspace();
  server = await startNodeServer({ root: ws.root, auth: { token: TEST_TOKEN }, port: 0, allowedOrigins: [ORIGIN] });
});
afterAll(async () => {
  await server.close();
  await ws.cleanup();
});
beforeEach(async () => {
  for (const name of await readdir(ws.root)) await rm(`${ws.root}/${name}`, { recursive: true });
});

const raw = (path: string, init: RequestInit = {}) => fetch(server.url + path, init);
const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/json', 'x-intentic-control': TEST_TOKEN, ...headers },
});

describe('the Intentic wire over a real server', () => {
  it('runs dir, copy, move and delete end to end through the OpenAPILink', async () => {
    const client = intenticClient({ url: server.url });
    expect(await client.workspace.mkdir({ path: 'src/lib' })).toEqual({ ok: true });
    await writeFile(`${ws.root}/src/lib/a.ts`, 'export {}');
    expect(await client.workspace.copy({ from: 'src', to: 'copy/src' })).toEqual({ ok: true });
    expect(await client.workspace.move({ from: 'copy/src/lib/a.ts', to: 'copy/src/lib/b.ts' })).toEqual({ ok: true });
    expect(await client.workspace.delete({ path: 'src' })).toEqual({ ok: true });
    expect(await readdir(ws.root)).toEqual(['copy']);
    expect(await readdir(`${ws.root}/copy/src/lib`)).toEqual(['b.ts']);
    expect(await readFile(`${ws.root}/copy/src/lib/b.ts`, 'utf8')).toBe('export {}');
  });

  it('answers a missing or wrong x-intentic-control with UNAUTHORIZED the client can read, and does nothing', async () => {
    for (const token of [null, 'wrong-token']) {
      const error = await orpcError(intenticClient({ url: server.url }, { token }).workspace.mkdir({ path: 'nope' }));
      expect(error).toBeInstanceOf(ORPCError);
      expect({ defined: error.defined, code: error.code, status: error.status, message: error.message }).toEqual({
        defined: false,
        code: 'UNAUTHORIZED',
        status: 401,
        message: 'missing or invalid token',
      });
    }
    expect(await readdir(ws.root)).toEqual([]);
  });

  it('grants x-intentic-control and content-type to a preflight from an allowed origin, and refuses others', async () => {
    for (const requested of ['content-type, x-intentic-control', null]) {
      const headers: Record<string, string> = { origin: ORIGIN, 'access-control-request-method': 'POST' };
      if (requested) headers['access-control-request-headers'] = requested;
      const res = await raw('/workspace/dir', { method: 'OPTIONS', headers });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      const granted = res.headers.get('access-control-allow-headers')!.split(',').map((h) => h.trim().toLowerCase());
      expect(granted).toEqual(expect.arrayContaining(['content-type', 'x-intentic-control']));
      const methods = res.headers.get('access-control-allow-methods')!.split(',').map((m) => m.trim());
      expect(methods).toEqual(expect.arrayContaining(['POST', 'DELETE']));
    }
    const refused = await raw('/workspace/dir', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    // The actual call from the allowed origin carries the grant too.
    const actual = await raw('/workspace/dir', json({ path: 'from-browser' }, { origin: ORIGIN }));
    expect(actual.status).toBe(200);
    expect(actual.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(await actual.json()).toEqual({ ok: true });
  });

  it('returns a zod failure as BAD_REQUEST with data.issues', async () => {
    const client = intenticClient({ url: server.url });
    const error = await orpcError(client.workspace.move({ from: 'a' } as { from: string; to: string }));
    expect({ code: error.code, status: error.status, message: error.message, data: error.data }).toEqual({
      code: 'BAD_REQUEST',
      status: 400,
      message: 'invalid body: to: to must be a string',
      data: { issues: [{ path: ['to'], message: 'to must be a string', code: 'invalid_type' }] },
    });
  });

  it('answers an unknown call under /workspace/ with an oRPC NOT_FOUND body (any method)', async () => {
    const newer = {
      nope: oc.route({ method: 'GET', path: '/workspace/nope' }).input(z.object({ x: z.string() })).output(z.unknown()),
      dirByDelete: oc.route({ method: 'DELETE', path: '/workspace/dir' }).input(z.object({ path: z.string() })).output(z.unknown()),
    };
    const client: ContractRouterClient<typeof newer> = createORPCClient(
      new OpenAPILink(newer, { url: server.url, headers: { 'x-intentic-control': TEST_TOKEN } }),
    );
    const nope = await orpcError(client.nope({ x: '1' }));
    expect({ code: nope.code, status: nope.status, message: nope.message }).toEqual({
      code: 'NOT_FOUND',
      status: 404,
      message: 'no such call: GET /workspace/nope',
    });
    const wrongMethod = await orpcError(client.dirByDelete({ path: 'x' }));
    expect({ code: wrongMethod.code, status: wrongMethod.status, message: wrongMethod.message }).toEqual({
      code: 'NOT_FOUND',
      status: 404,
      message: 'no such call: DELETE /workspace/dir',
    });
    // Without the token it is still UNAUTHORIZED first: unknown calls do not tell an anonymous caller anything.
    const anonymous = await raw('/workspace/nope');
    expect(anonymous.status).toBe(401);
    // Outside /workspace/ the plain 404 stays as it was.
    const elsewhere = await raw('/nope', { headers: { 'x-intentic-control': TEST_TOKEN } });
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toEqual({ error: 'not found' });
  });

  it('sends error bodies with exactly defined, code, status, message (+ data only with issues)', async () => {
    const invalid = await raw('/workspace/copy', json({ from: 3, to: 'x' }));
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const invalidBody = await invalid.json();
    expect(Object.keys(invalidBody).sort()).toEqual(['code', 'data', 'defined', 'message', 'status']);
    expect(invalidBody).toEqual({
      defined: false,
      code: 'BAD_REQUEST',
      status: 400,
      message: 'invalid body: from: from must be a string',
      data: { issues: [{ path: ['from'], message: 'from must be a string', code: 'invalid_type' }] },
    });

    const missing = await raw('/workspace/entry', { ...json({ path: 'gone.txt' }), method: 'DELETE' });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      defined: false,
      code: 'NOT_FOUND',
      status: 404,
      message: 'no such file or folder: gone.txt',
    });

    const notJson = await raw('/workspace/dir', { ...json({}), body: '{"path": ' });
    expect(await notJson.json()).toEqual({ defined: false, code: 'BAD_REQUEST', status: 400, message: 'invalid JSON body' });

    const unauthorized = await raw('/workspace/dir', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(unauthorized.status).toBe(401);
    expect(await unauthorized.json()).toEqual({
      defined: false,
      code: 'UNAUTHORIZED',
      status: 401,
      message: 'missing or invalid token',
    });

    const escape = await raw('/workspace/dir', json({ path: '../x' }));
    expect(escape.status).toBe(400);
    expect(await escape.json()).toEqual({
      defined: false,
      code: 'BAD_REQUEST',
      status: 400,
      message: 'path is outside the workspace',
    });
    expect(await readdir(ws.root)).toEqual([]);
  });
});
