/**
 * The typed HTTP client against the app in the same process (its `fetch` passed in) over the memory FileSystem:
 * each dialect's routes with their typed inputs and answers, errors in each dialect's shape as one error class,
 * byte routes through `request`, a gateway base path; and the types themselves (checked by tsc with the suite).
 */
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { MemoryFileSystem } from '../../adapters/fs/memory-file-system.ts';
import { createWorkspaceClient, WorkspaceClientError, type HttpAnswer, type HttpInput } from '../../client/http-client.ts';
import { createWorkspaceApp, type WorkspaceApp } from '../../runtime/app.ts';
import { TEST_TOKEN } from '../support/workspace.ts';

let app: WorkspaceApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

function clientOn(files: Record<string, string>, basePath = '') {
  app = createWorkspaceApp({ fs: new MemoryFileSystem(files), root: '/ws', auth: { token: TEST_TOKEN }, ...(basePath ? { basePath } : {}) });
  const served = app;
  return createWorkspaceClient({ baseUrl: `http://daemon.test${basePath}`, token: TEST_TOKEN, fetch: (request) => served.fetch(request) });
}

describe('createWorkspaceClient', () => {
  it('calls routes of every dialect with their typed inputs and answers', async () => {
    const api = clientOn({ '/ws/a.txt': 'alpha\nbeta\n', '/ws/src/b.ts': 'export const b = 1;\n' });
    expect(await api.call('GET /healthz')).toEqual({ ok: true });
    const file = await api.call('GET /api/file', { query: { path: 'a.txt' } });
    expect(file).toMatchObject({ content: 'alpha\nbeta\n' });
    expect(await api.call('POST /workspace/dir', { body: { path: 'made/deep' } })).toEqual({ ok: true });
    const tree = await api.call('GET /workspace/tree');
    expect(tree.tree.map((entry) => entry.name).sort()).toEqual(['a.txt', 'made', 'src']);
    const page = await api.call('GET /workspace-files/read', { query: { path: 'a.txt' } });
    expect(page).toMatchObject({ absolutePath: '/ws/a.txt' });
    // No pty adapter in this app: the named terminals answer 501, raised like any error.
    await expect(api.call('GET /terminals')).rejects.toMatchObject({ status: 501, message: 'terminals are not available on this runtime' });
  });

  it('raises each dialect’s error as one WorkspaceClientError with its status, text and body', async () => {
    const api = clientOn({ '/ws/a.txt': 'a' });
    const failure = (work: Promise<unknown>) => work.then(() => expect.unreachable('it succeeded'), (error: unknown) => error as WorkspaceClientError);
    const ori = await failure(api.call('GET /api/file', { query: { path: 'missing.txt' } }));
    expect(ori).toBeInstanceOf(WorkspaceClientError);
    expect([ori.status, typeof ori.message]).toEqual([404, 'string']);
    expect(ori.body).toEqual({ error: ori.message });
    const intentic = await failure(api.call('GET /workspace/children', { query: { path: 'missing' } }));
    expect(intentic.status).toBe(404);
    expect(intentic.body).toMatchObject({ code: 'NOT_FOUND', message: intentic.message });
    const files = await failure(api.call('GET /workspace-files/stat', { query: { path: '../outside' } }));
    expect(files.status).toBe(403);
    expect(files.body).toMatchObject({ error: { message: files.message } });
  });

  it('byte routes answer the Response itself; path parameters are encoded; a gateway base path is kept', async () => {
    const api = clientOn({ '/ws/a b.txt': 'bytes here' }, '/sandbox/ws1');
    const raw = await api.request('GET /api/raw', { query: { path: 'a b.txt' }, headers: { range: 'bytes=0-4' } });
    expect([raw.status, await raw.text()]).toEqual([206, 'bytes']);
    const missing = await api.request('DELETE /terminals/{name}', { params: { name: 'no such/one' } });
    expect(missing.status).toBeGreaterThanOrEqual(400); // answered (501 without a pty here), not thrown
  });

  it('types: inputs and answers come from the route docs', () => {
    expectTypeOf<HttpInput<'GET /api/file'>['query']>().toMatchTypeOf<{ path: string }>();
    expectTypeOf<HttpAnswer<'GET /healthz'>>().toEqualTypeOf<{ ok: true }>();
    expectTypeOf<HttpAnswer<'POST /workspace/dir'>>().toMatchTypeOf<{ ok: true }>();
    // @ts-expect-error a byte route has no JSON answer: `call` refuses it (use `request`)
    void (() => createWorkspaceClient({ baseUrl: 'http://x' }).call('GET /api/raw', { query: { path: 'a' } }));
  });
});
