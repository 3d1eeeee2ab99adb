/**
 * What the malformed-request fuzzer (test/hardening/malformed.test.ts) found, each as its smallest case:
 *
 * - a JSON body the client stops sending before its Content-Length: the body stream fails, and that failure was
 *   logged as an unexpected error and answered 500; it is the client's, a 400 in the dialect's shape;
 * - a WebSocket handshake `ws` refuses (no Sec-WebSocket-Key, an unknown version) was answered with ws's text/html
 *   page; it is `{"error"}` JSON like every other refused upgrade;
 * - a request offering `Upgrade: h2c` whose client half-closed mid-body held its connection forever (the body
 *   waited for bytes that could no longer come); the body now fails and the connection ends.
 */
import { connect } from 'node:net';
import { format } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { NodeServer } from '../../runtime/node/server.ts';
import { startTestServer } from '../support/rpc-client.ts';
import { nodeApp, request, TEST_TOKEN, tempWorkspace, type TempWorkspace } from '../support/workspace.ts';

let workspace: TempWorkspace;
beforeAll(async () => {
  workspace = await tempWorkspace({ 'a.txt': 'a\n' });
});
afterAll(async () => {
  await workspace.cleanup();
});

/** A body that fails after its first bytes, as the Node server's does when the client hangs up mid-body. */
function cutShortBody(): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream({
    pull(controller) {
      if (sent) return controller.error(new Error('aborted'));
      sent = true;
      controller.enqueue(new TextEncoder().encode('{"content":"hal'));
    },
  });
}

describe('a JSON body cut short is a 400 in the dialect shape, not an unexpected error', () => {
  const cases = [
    { method: 'PUT', path: '/api/file?path=a.txt', expected: { error: 'the request body ended before it was complete' } },
    {
      method: 'POST',
      path: '/workspace/move',
      expected: { defined: false, code: 'BAD_REQUEST', status: 400, message: 'the request body ended before it was complete' },
    },
    {
      method: 'POST',
      path: '/workspace/dir',
      expected: { defined: false, code: 'BAD_REQUEST', status: 400, message: 'the request body ended before it was complete' },
    },
  ];
  for (const { method, path, expected } of cases) {
    it(`${method} ${path}`, async () => {
      const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
      try {
        const app = nodeApp(workspace.root);
        const init = { method, body: cutShortBody(), duplex: 'half', headers: { 'content-type': 'application/json' } } as RequestInit;
        const response = await app.fetch(request(path, init));
        expect(response.status).toBe(400);
        expect(await response.json()).toEqual(expected);
        expect(logged.mock.calls.map((args) => format(...args))).toEqual([]);
      } finally {
        logged.mockRestore();
      }
    });
  }
});

describe('over a real server', () => {
  let server: NodeServer;
  beforeAll(async () => {
    server = await startTestServer(workspace.root);
  });
  afterAll(async () => {
    await server.close();
  });

  /** Writes `text` (half-closing after it when `end`), and resolves with everything the server sent until it closed. */
  function exchange(text: string, end: boolean): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      socket.on('error', reject);
      socket.on('close', () => resolve(received));
      socket.on('connect', () => (end ? socket.end(text) : socket.write(text)));
    });
  }

  const upgrade = (headers: string[]) =>
    `GET /ws?token=${TEST_TOKEN} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n${headers.join('\r\n')}\r\n\r\n`;

  it('a handshake without Sec-WebSocket-Key is refused 400 {"error"}', async () => {
    const answer = await exchange(upgrade(['Sec-WebSocket-Version: 13']), false);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/\r\ncontent-type: application\/json; charset=utf-8\r\n/i);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'invalid WebSocket handshake: Missing or invalid Sec-WebSocket-Key header' });
  });

  it('a handshake of an unknown version is refused 400 {"error"}, naming the versions spoken', async () => {
    const answer = await exchange(upgrade(['Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 7']), false);
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/\r\nsec-websocket-version: 13, 8\r\n/i);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'invalid WebSocket handshake: Missing or invalid Sec-WebSocket-Version header' });
  });

  it('an h2c upgrade offer whose client half-closes mid-body ends the connection (it used to wait forever)', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const head =
        `PUT /api/file?path=b.txt HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nUpgrade: h2c\r\n` +
        'Connection: Upgrade\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"content":';
      const answer = await exchange(head, true); // resolves when the daemon closes the connection
      expect(answer).not.toMatch(/^HTTP\/1\.1 [^4]/);
      expect(logged.mock.calls.map((args) => format(...args))).toEqual([]);
    } finally {
      logged.mockRestore();
    }
  });
});
