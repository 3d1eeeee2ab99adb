import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNodeServer, type NodeServer } from '../../../runtime/node/server.ts';
import { TEST_TOKEN, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

/**
 * Sends raw bytes (and half-closes, unless `keepWriting`: Node drops a request whose client half-closed) and reads
 * everything until the daemon closes: status line, headers, body.
 */
function exchange(port: number, text: string, keepWriting = false): Promise<{ statusLine: string; headers: string[]; body: string }> {
  return new Promise((resolve, reject) => {
    const bytes = Buffer.from(text, 'latin1');
    const socket = connect(port, '127.0.0.1', () => (keepWriting ? socket.write(bytes) : socket.end(bytes)));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', ...rest] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
      const [statusLine = '', ...headers] = head.split('\r\n');
      resolve({ statusLine, headers: headers.map((h) => h.toLowerCase()), body: rest.join('\r\n\r\n') });
    });
  });
}

describe('what node:http refuses by itself, in JSON (runtime/node/node-refusals.ts)', () => {
  let workspace: TempWorkspace;
  let server: NodeServer;
  beforeAll(async () => {
    workspace = await tempWorkspace();
    server = await startNodeServer({ root: workspace.root, auth: { token: TEST_TOKEN }, port: 0, watch: false, acceptors: 1 });
  });
  afterAll(async () => {
    await server?.close();
    await workspace?.cleanup();
  });

  it.each([
    {
      what: 'headers past 16 KiB on an ori path: 431, {error}',
      text: `GET /api/files HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
      status: 'HTTP/1.1 431 Request Header Fields Too Large',
      body: { error: 'request headers too large: at most 16 KiB' },
    },
    {
      what: "conflicting lengths on an Intentic call: 400 in oRPC's shape",
      text: 'POST /workspace/dir HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc',
      status: 'HTTP/1.1 400 Bad Request',
      body: { defined: false, code: 'BAD_REQUEST', status: 400, message: 'malformed HTTP request' },
    },
    {
      what: "a header with no colon on a workspace-files path: 400 in its shape",
      text: 'GET /workspace-files/list HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
      status: 'HTTP/1.1 400 Bad Request',
      body: { error: { code: 'gateway/bad-request', message: 'malformed HTTP request', details: {} } },
    },
    {
      what: "a body cut short on an Intentic call (the head was read): 400 in oRPC's shape",
      text: 'POST /workspace/dir HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nab',
      status: 'HTTP/1.1 400 Bad Request',
      body: { defined: false, code: 'BAD_REQUEST', status: 400, message: 'malformed HTTP request' },
    },
    {
      what: 'an Expect other than 100-continue on an ori path: 417, {error}',
      text: 'PUT /api/file?path=a.txt HTTP/1.1\r\nHost: x\r\nExpect: garbage\r\nContent-Length: 2\r\n\r\n{}',
      status: 'HTTP/1.1 417 Expectation Failed',
      body: { error: 'unsupported Expect header: only 100-continue is' },
    },
    {
      what: 'a request line past 16 KiB on an Intentic call: 431 in its shape',
      text: `GET /workspace/tree?huge=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      status: 'HTTP/1.1 431 Request Header Fields Too Large',
      body: { defined: false, code: 'BAD_REQUEST', status: 431, message: 'request headers too large: at most 16 KiB' },
    },
    {
      what: 'bytes with no request line (a TLS hello): 400, {error}',
      text: '\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003',
      status: 'HTTP/1.1 400 Bad Request',
      body: { error: 'malformed HTTP request' },
    },
  ])('$what', async ({ text, status, body }) => {
    const answer = await exchange(server.port, text);
    expect(answer.statusLine).toBe(status);
    expect(answer.headers).toContain('content-type: application/json; charset=utf-8');
    expect(answer.headers).toContain('connection: close');
    expect(answer.headers).toContain(`content-length: ${Buffer.byteLength(answer.body)}`);
    expect(JSON.parse(answer.body)).toEqual(body);
  });

  it('an HTTP/1.1 request without Host: 400 {error} (HTTP/1.0 needs none)', async () => {
    const missing = await exchange(server.port, `GET /api/files HTTP/1.1\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n\r\n`, true);
    expect(missing.statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(JSON.parse(missing.body)).toEqual({ error: 'an HTTP/1.1 request needs a Host header' });
    const old = await exchange(server.port, `GET /api/files HTTP/1.0\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n\r\n`, true);
    expect(old.statusLine).toBe('HTTP/1.1 200 OK');
  });

  it('the daemon goes on answering', async () => {
    const answer = await exchange(server.port, `GET /api/files HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nConnection: close\r\n\r\n`, true);
    expect(answer.statusLine).toBe('HTTP/1.1 200 OK');
  });
});
