/**
 * Request lines the daemon does not serve, written raw on a socket as a proxy-minded or broken client would send
 * them: an absolute-form target, the asterisk form, a Host that makes no URL. Each is a 400 with a JSON
 * `{ "error" }` body and no stack trace, on ordinary requests and on WebSocket upgrades alike.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeServer } from '../../../runtime/node/server.ts';
import { startTestServer } from '../../support/rpc-client.ts';
import { TEST_TOKEN, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

let workspace: TempWorkspace;
let server: NodeServer;
beforeAll(async () => {
  workspace = await tempWorkspace({ 'x.txt': 'x\n' });
  server = await startTestServer(workspace.root);
});
afterAll(async () => {
  await server.close();
  await workspace.cleanup();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `lines` (joined with CRLF, the blank line added) and reads the one answer until the server closes. */
function rawRequest(lines: string[]): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.setTimeout(10_000, () => reject(new Error('no answer')));
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine, ...headerLines] = text.slice(0, split).split('\r\n');
      const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(split + 4) });
    });
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  });
}

const host = () => `Host: 127.0.0.1:${server.port}`;
const auth = `Authorization: Bearer ${TEST_TOKEN}`;
const upgrade = ['Connection: Upgrade', 'Upgrade: websocket', 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=='];

function expectRefused(answer: RawAnswer, error: string): void {
  expect(answer.status).toBe(400);
  expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(JSON.parse(answer.body)).toEqual({ error });
}

const ABSOLUTE = 'the request target must be a path (e.g. /api/files), not an absolute URL';
const ASTERISK = 'the request target * is not served: ask about a path, e.g. OPTIONS /api/files';

describe('request targets that are not a path', () => {
  it('absolute form: 400 JSON, whether or not its authority is ours', async () => {
    expectRefused(await rawRequest(['GET http://other.example/api/file?path=x.txt HTTP/1.1', host(), auth]), ABSOLUTE);
    expectRefused(await rawRequest([`GET http://127.0.0.1:${server.port}/api/file?path=x.txt HTTP/1.1`, host(), auth]), ABSOLUTE);
  });

  it('asterisk form (OPTIONS *): 400 JSON', async () => {
    expectRefused(await rawRequest(['OPTIONS * HTTP/1.1', host(), 'Origin: http://example.com', 'Access-Control-Request-Method: GET']), ASTERISK);
    expectRefused(await rawRequest(['OPTIONS * HTTP/1.1', host()]), ASTERISK);
  });

  it('a Host that makes no URL with the path: 400 JSON', async () => {
    expectRefused(await rawRequest(['GET /api/file?path=x.txt HTTP/1.1', 'Host: a b', auth]), 'malformed Host header or request target');
  });

  it('the same on a WebSocket upgrade, before any socket exists', async () => {
    expectRefused(await rawRequest([`GET http://127.0.0.1:${server.port}/ws?token=${TEST_TOKEN} HTTP/1.1`, host(), ...upgrade]), ABSOLUTE);
    expectRefused(await rawRequest([`GET /ws?token=${TEST_TOKEN} HTTP/1.1`, 'Host: a b', ...upgrade]), 'malformed Host header or request target');
  });

  it('an ordinary path still works on the same kind of socket', async () => {
    const answer = await rawRequest(['GET /api/file?path=x.txt HTTP/1.1', host(), auth, 'Connection: close']);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ content: 'x\n' });
  });
});
