import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WorkspaceApp } from '../../runtime/app.ts';
import { nodeApp, request, tempWorkspace, type TempWorkspace } from '../support/workspace.ts';

/**
 * The app works on `maxActiveRequests` at once; the rest wait in arrival order, at most `maxQueuedRequests` and
 * each at most `requestQueueMs`, else 429 with Retry-After in the dialect's own shape (runtime/http/admission-gate.ts).
 * A request is held at work here by a PUT whose body has not finished arriving.
 */
describe('admission: requests at work at once, and a fair line for the rest', () => {
  let workspace: TempWorkspace;
  let app: WorkspaceApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await workspace?.cleanup();
  });

  /** A PUT /api/file whose body arrives in two parts: the second on finish(). */
  function heldWrite(path: string, content: string) {
    const encoder = new TextEncoder();
    let finish!: () => void;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(`{"content":${JSON.stringify(content)}`));
        finish = () => {
          controller.enqueue(encoder.encode('}'));
          controller.close();
        };
      },
    });
    const init = { method: 'PUT', body, duplex: 'half', headers: { 'content-type': 'application/json' } } as RequestInit;
    return { answer: app!.fetch(request(`/api/file?path=${path}`, init)), finish: () => finish() };
  }

  it('past maxQueuedRequests waiting, a request is refused at once: 429, Retry-After, each dialect its shape', async () => {
    workspace = await tempWorkspace({ 'a.txt': 'old\n' });
    app = nodeApp(workspace.root, {
      allowedOrigins: ['https://ide.example'],
      limits: { maxActiveRequests: 1, maxQueuedRequests: 1, requestQueueMs: 60_000 },
    });
    const held = heldWrite('a.txt', 'new\n');
    const waiting = app.fetch(request('/api/file?path=a.txt'));
    const message = 'the daemon is busy: 1 requests are already waiting; retry shortly';

    const ori = await app.fetch(request('/api/files', { headers: { origin: 'https://ide.example' } }));
    expect(ori.status).toBe(429);
    expect(ori.headers.get('retry-after')).toBe('1');
    expect(ori.headers.get('access-control-allow-origin')).toBe('https://ide.example');
    expect(await ori.json()).toEqual({ error: message });

    const intentic = await app.fetch(request('/workspace/tree'));
    expect(intentic.status).toBe(429);
    expect(intentic.headers.get('retry-after')).toBe('1');
    expect(await intentic.json()).toEqual({ defined: false, code: 'TOO_MANY_REQUESTS', status: 429, message });

    const workspaceFiles = await app.fetch(request('/workspace-files/list?path=.'));
    expect(workspaceFiles.status).toBe(429);
    expect(await workspaceFiles.json()).toEqual({ error: { code: 'workspace-file/too-many', message, details: {} } });

    // The refused requests changed nothing; the held write and the waiting read go on in order.
    expect(await readFile(join(workspace.root, 'a.txt'), 'utf8')).toBe('old\n');
    held.finish();
    expect((await held.answer).status).toBe(200);
    const read = await waiting;
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ content: 'new\n' });
    expect((await app.fetch(request('/api/files'))).status).toBe(200);
  });

  it('a request that waited requestQueueMs without a turn is refused; later ones are served again', async () => {
    workspace = await tempWorkspace({ 'a.txt': 'old\n' });
    app = nodeApp(workspace.root, { limits: { maxActiveRequests: 1, maxQueuedRequests: 100, requestQueueMs: 50 } });
    const held = heldWrite('a.txt', 'new\n');
    const started = performance.now();
    const refused = await app.fetch(request('/api/files'));
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({ error: 'the daemon is busy: no turn within 0.05 s; retry shortly' });
    held.finish();
    expect((await held.answer).status).toBe(200);
    expect((await app.fetch(request('/api/files'))).status).toBe(200);
  });

  it('OPTIONS preflights never wait in line', async () => {
    workspace = await tempWorkspace({ 'a.txt': 'old\n' });
    app = nodeApp(workspace.root, {
      allowedOrigins: ['https://ide.example'],
      limits: { maxActiveRequests: 1, maxQueuedRequests: 0, requestQueueMs: 60_000 },
    });
    const held = heldWrite('a.txt', 'new\n');
    const preflight = await app.fetch(
      request('/api/file?path=a.txt', { method: 'OPTIONS', headers: { origin: 'https://ide.example', 'access-control-request-method': 'PUT' } }),
    );
    expect(preflight.status).toBe(204);
    held.finish();
    expect((await held.answer).status).toBe(200);
  });
});
