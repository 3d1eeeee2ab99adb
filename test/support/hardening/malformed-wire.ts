/**
 * HTTP malformed below what a client library would send, written byte by byte on a `node:net` socket to a real
 * daemon: bodies shorter than their Content-Length (the socket half-closed or cut mid-body), broken chunked
 * encoding, conflicting lengths, garbage request lines and headers, upgrade offers that are not handshakes. The
 * answers are parsed off the socket as they come (there may be none, or several when requests are pipelined).
 */
import { connect } from 'node:net';
import fc from 'fast-check';
import type { Answer } from './malformed-oracle.ts';
import { errorShapeOfUnrouted, type ErrorShape } from './malformed-requests.ts';

/** One raw exchange: the bytes, how the client leaves (half-close and read, or cut), and the routes' error shape. */
export interface RawCase {
  name: string;
  chunks: Buffer[];
  /** `end`: half-close and read every answer; `cut`: destroy the socket right after the last chunk; `keep`: read with the socket open. */
  then: 'end' | 'cut' | 'keep';
  shape: ErrorShape;
}

const CRLF = '\r\n';

function head(method: string, target: string, token: string, headers: string[] = []): string {
  return [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1', `Authorization: Bearer ${token}`, ...headers].join(CRLF) + CRLF + CRLF;
}

/** A body route per dialect, with a body that would be valid if it arrived whole. */
const BODY_ROUTES: readonly { method: string; target: string; body: string; shape: ErrorShape }[] = [
  { method: 'PUT', target: '/api/file?path=new.txt', body: '{"content":"hello"}', shape: 'plain' },
  { method: 'POST', target: '/workspace/dir', body: '{"path":"dir/new"}', shape: 'orpc' },
  { method: 'POST', target: '/workspace/move', body: '{"from":"missing","to":"x"}', shape: 'orpc' },
  { method: 'POST', target: '/workspace/upload?path=new.bin', body: 'some bytes', shape: 'plain' },
  { method: 'POST', target: '/workspace/upload?path=a.txt&offset=2', body: 'XY', shape: 'plain' },
  { method: 'POST', target: '/terminals', body: '{"name":5}', shape: 'plain' },
  { method: 'DELETE', target: '/workspace/entry', body: '{"path":"missing/x"}', shape: 'orpc' },
];

const bodyRoute = fc.constantFrom(...BODY_ROUTES);

/** Content-Length larger than the body sent: half-closed (the request can never complete) or cut mid-body. */
function truncatedBody(token: string): fc.Arbitrary<RawCase> {
  return fc
    .tuple(bodyRoute, fc.constantFrom(1, 10, 1_000_000, 2 ** 40), fc.nat({ max: 100 }), fc.constantFrom('end' as const, 'cut' as const))
    .map(([route, extra, keepPercent, then]) => {
      const body = Buffer.from(route.body);
      const sent = body.subarray(0, Math.floor((body.length * keepPercent) / 100));
      const bytes = head(route.method, route.target, token, ['Content-Type: application/json', `Content-Length: ${body.length + extra}`]);
      return { name: `truncated body (${then}) ${route.method} ${route.target}`, chunks: [Buffer.from(bytes), sent], then, shape: route.shape };
    });
}

/** Chunked bodies no parser should accept, or that stop before their last chunk. */
const BAD_CHUNKINGS: readonly string[] = [
  `zz${CRLF}abc${CRLF}0${CRLF}${CRLF}`,
  `-1${CRLF}a${CRLF}0${CRLF}${CRLF}`,
  `ffffffffffffffffffff${CRLF}abc${CRLF}`,
  `5${CRLF}ab${CRLF}0${CRLF}${CRLF}`,
  `3${CRLF}abcdef${CRLF}0${CRLF}${CRLF}`,
  `3;${'x'.repeat(20_000)}${CRLF}abc${CRLF}0${CRLF}${CRLF}`,
  `3 ${CRLF}abc${CRLF}0${CRLF}${CRLF}`,
  `3\nabc\n0\n\n`,
  `3${CRLF}abc`,
  `3${CRLF}abc${CRLF}0${CRLF}Trailer: ${'y'.repeat(20_000)}${CRLF}${CRLF}`,
  `${'0'.repeat(100)}3${CRLF}abc${CRLF}0${CRLF}${CRLF}`,
];

function badChunked(token: string): fc.Arbitrary<RawCase> {
  return fc
    .tuple(bodyRoute, fc.constantFrom(...BAD_CHUNKINGS), fc.constantFrom('end' as const, 'cut' as const))
    .map(([route, chunked, then]) => ({
      name: `bad chunked body ${JSON.stringify(chunked.slice(0, 24))} (${then}) ${route.method} ${route.target}`,
      chunks: [Buffer.from(head(route.method, route.target, token, ['Content-Type: application/json', 'Transfer-Encoding: chunked'])), Buffer.from(chunked)],
      then,
      shape: route.shape,
    }));
}

/** Framing the body two ways at once, or in ways HTTP/1.1 forbids (request smuggling's raw material). */
function conflictingLengths(token: string): fc.Arbitrary<RawCase> {
  const framings = [
    ['Content-Length: 5', 'Transfer-Encoding: chunked'],
    ['Content-Length: 5', 'Content-Length: 6'],
    ['Content-Length: 5, 6'],
    ['Content-Length: -1'],
    ['Content-Length: 0x10'],
    ['Content-Length: 18446744073709551616'],
    ['Content-Length: 1e3'],
    ['Transfer-Encoding: chunked, gzip'],
    ['Transfer-Encoding: xchunked'],
    ['Transfer-Encoding: chunked', 'Transfer-Encoding: identity'],
    ['Transfer-Encoding : chunked'],
  ];
  return fc.tuple(bodyRoute, fc.constantFrom(...framings)).map(([route, framing]) => ({
    name: `conflicting framing ${framing.join(' / ')} ${route.method} ${route.target}`,
    chunks: [Buffer.from(head(route.method, route.target, token, ['Content-Type: application/json', ...framing])), Buffer.from(`5${CRLF}hello${CRLF}0${CRLF}${CRLF}`)],
    then: 'end',
    shape: route.shape,
  }));
}

/** Request lines and headers that are not HTTP/1.1, or not one a server should take. */
function garbageHttp(token: string): fc.Arbitrary<RawCase> {
  const auth = `Authorization: Bearer ${token}`;
  const texts = [
    `GET /healthz HTTP/9.9${CRLF}Host: x${CRLF}${CRLF}`,
    `GET /api/files HTTP/1.1${CRLF}${auth}${CRLF}${CRLF}`, // no Host
    `GET /api/files HTTP/1.0${CRLF}${auth}${CRLF}${CRLF}`,
    `${CRLF}${CRLF}${CRLF}`,
    `get /healthz HTTP/1.1${CRLF}Host: x${CRLF}${CRLF}`,
    `GET  /healthz  HTTP/1.1${CRLF}Host: x${CRLF}${CRLF}`,
    `GET /api/files?path=a b HTTP/1.1${CRLF}Host: x${CRLF}${auth}${CRLF}${CRLF}`,
    `GET http://evil.example/api/files HTTP/1.1${CRLF}Host: x${CRLF}${auth}${CRLF}${CRLF}`,
    `OPTIONS * HTTP/1.1${CRLF}Host: x${CRLF}${CRLF}`,
    `CONNECT 127.0.0.1:22 HTTP/1.1${CRLF}Host: 127.0.0.1:22${CRLF}${CRLF}`,
    `GET /api/files HTTP/1.1${CRLF}Host: [::1${CRLF}${auth}${CRLF}${CRLF}`,
    `GET /api/files HTTP/1.1${CRLF}Host: a b${CRLF}${auth}${CRLF}${CRLF}`,
    `GET /api/files HTTP/1.1${CRLF}Host: x${CRLF}Host: y${CRLF}${auth}${CRLF}${CRLF}`,
    `GET /api/files HTTP/1.1${CRLF}Host: x${CRLF}Bad Header${CRLF}${CRLF}`,
    `GET /api/files HTTP/1.1${CRLF}Host: x${CRLF}X-Fold: a${CRLF} folded${CRLF}${auth}${CRLF}${CRLF}`,
    `GET /api/files HTTP/1.1${CRLF}Host: x${CRLF}X-Nul: a\u0000b${CRLF}${CRLF}`,
    `GET /api/files HTTP/1.1${CRLF}Host: x${CRLF}X-Big: ${'b'.repeat(20_000)}${CRLF}${CRLF}`,
    `GET /api/files HTTP/1.1${CRLF}Host: x${CRLF}${Array.from({ length: 3000 }, (_, i) => `X-${i}: ${i}`).join(CRLF)}${CRLF}${auth}${CRLF}${CRLF}`,
    `GET /${'p'.repeat(20_000)} HTTP/1.1${CRLF}Host: x${CRLF}${CRLF}`,
    `GET /healthz HTTP/1.1\nHost: x\n\n`,
    `GET /healthz HTTP/1.1${CRLF}Host: x${CRLF}${CRLF}GARBAGE${CRLF}${CRLF}`,
    `GET /healthz HTTP/1.1${CRLF}Host: x${CRLF}${CRLF}GET /api/files?path=%zz HTTP/1.1${CRLF}Host: x${CRLF}${auth}${CRLF}${CRLF}`,
    `PUT /api/file?path=a.txt HTTP/1.1${CRLF}Host: x${CRLF}${auth}${CRLF}Expect: 100-continue${CRLF}Content-Length: 3${CRLF}${CRLF}{x}`,
    `PUT /api/file?path=a.txt HTTP/1.1${CRLF}Host: x${CRLF}${auth}${CRLF}Expect: garbage${CRLF}Content-Length: 2${CRLF}${CRLF}{}`,
    `\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003`, // a TLS ClientHello's start
    `PRI * HTTP/2.0${CRLF}${CRLF}SM${CRLF}${CRLF}`,
  ];
  return fc.oneof(
    fc.constantFrom(...texts).map((text) => ({ name: `garbage HTTP ${JSON.stringify(text.slice(0, 40))}`, chunks: [Buffer.from(text, 'latin1')], then: 'end' as const, shape: 'plain' as const })),
    fc.uint8Array({ minLength: 1, maxLength: 512 }).map((bytes) => ({ name: 'random bytes', chunks: [Buffer.from(bytes)], then: 'end' as const, shape: 'plain' as const })),
  );
}

/** Upgrade offers that are no WebSocket handshake, and handshakes that are refused before any socket exists. */
function badUpgrades(token: string): fc.Arbitrary<RawCase> {
  const upgrade = (target: string, headers: string[]) => `GET ${target} HTTP/1.1${CRLF}Host: 127.0.0.1${CRLF}${headers.join(CRLF)}${CRLF}${CRLF}`;
  const ws = ['Upgrade: websocket', 'Connection: Upgrade'];
  const texts = [
    upgrade(`/ws?token=${token}`, [...ws, 'Sec-WebSocket-Version: 13']), // no key
    upgrade(`/ws?token=${token}`, [...ws, 'Sec-WebSocket-Key: short', 'Sec-WebSocket-Version: 13']),
    upgrade(`/ws?token=${token}`, [...ws, 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 8']),
    upgrade(`/ws?token=${token}`, [...ws, 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits=99']),
    upgrade(`/ws?token=${token}`, [...ws, 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Protocol: ,,,']),
    upgrade('/ws?token=wrong', [...ws, 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 13']),
    upgrade(`/ws?token=${token}&token=${token}`, [...ws, 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 13']),
    upgrade(`/ws?token=${token}`, [...ws, 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 13', 'Origin: http://evil.example']),
    upgrade(`/ws/terminal?token=wrong`, [...ws, 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 13']),
    upgrade(`/ws/terminal?token=${token}`, [...ws, 'Sec-WebSocket-Version: 13']), // no key: refused before a shell
    upgrade(`/terminals/none?token=${token}`, [...ws, 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 13']),
    upgrade(`/terminals/none?token=${token}&from=-1`, [...ws, 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 13']),
    upgrade(`/nope?token=${token}`, [...ws, 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 13']),
    upgrade(`/workspace/nope?token=${token}`, [...ws, 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 13']),
    upgrade(`http://evil.example/ws?token=${token}`, [...ws, 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 13']),
    `POST /ws?token=${token} HTTP/1.1${CRLF}Host: x${CRLF}${ws.join(CRLF)}${CRLF}Content-Length: 3${CRLF}${CRLF}abc`,
    `PUT /api/file?path=new.txt HTTP/1.1${CRLF}Host: x${CRLF}Authorization: Bearer ${token}${CRLF}Upgrade: h2c${CRLF}Connection: Upgrade${CRLF}Transfer-Encoding: chunked${CRLF}${CRLF}3${CRLF}abc${CRLF}0${CRLF}${CRLF}`,
    `PUT /api/file?path=new.txt HTTP/1.1${CRLF}Host: x${CRLF}Authorization: Bearer ${token}${CRLF}Upgrade: h2c${CRLF}Connection: Upgrade${CRLF}Content-Length: 50${CRLF}${CRLF}{"content":`,
    `PUT /api/file?path=new.txt HTTP/1.1${CRLF}Host: x${CRLF}Authorization: Bearer ${token}${CRLF}Upgrade: h2c${CRLF}Content-Length: abc${CRLF}${CRLF}{}`,
  ];
  return fc
    .tuple(fc.constantFrom(...texts), fc.constantFrom('end' as const, 'cut' as const, 'keep' as const))
    .map(([text, then]) => ({
      name: `bad upgrade ${JSON.stringify(text.slice(0, 60))} (${then})`,
      chunks: [Buffer.from(text, 'latin1')],
      then,
      shape: errorShapeOfUnrouted(text.split(' ')[1]!),
    }));
}

/** Every kind of raw exchange. */
export function anyRawCase(token: string): fc.Arbitrary<RawCase> {
  return fc.oneof(truncatedBody(token), badChunked(token), conflictingLengths(token), garbageHttp(token), badUpgrades(token));
}

/** What the daemon sent back on one raw exchange: every answer parsed off the socket (maybe none). */
export interface RawOutcome {
  answers: Answer[];
  /** The socket was still open when reading stopped (`keep`, or a daemon that never closed it). */
  timedOut: boolean;
}

/**
 * Sends `raw` and reads until the daemon closes the connection, `readMs` passes with no byte, or (for `cut`)
 * at once. Answers are parsed from the bytes received: status line, headers, a body by length or chunks.
 */
export function sendRaw(port: number, raw: RawCase, readMs = 3000): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let idle: ReturnType<typeof setTimeout> | undefined;
    let done = false;
    const finish = (timedOut: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(idle);
      socket.destroy();
      resolve({ answers: parseAnswers(Buffer.concat(received)), timedOut });
    };
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => finish(true), readMs);
    };
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      if (raw.then === 'keep' && parseAnswers(Buffer.concat(received)).length > 0) return finish(false);
      armIdle();
    });
    socket.on('error', () => finish(false));
    socket.on('close', () => finish(false));
    socket.on('connect', () => {
      for (const chunk of raw.chunks) socket.write(chunk);
      if (raw.then === 'cut') return finish(false);
      if (raw.then === 'end') socket.end();
      armIdle();
    });
  });
}

/** Parses the HTTP/1.1 answers in `bytes`, as far as they are complete (a cut-off last one counts with what arrived). */
export function parseAnswers(bytes: Buffer): Answer[] {
  const answers: Answer[] = [];
  let at = 0;
  while (at < bytes.length) {
    const end = bytes.indexOf('\r\n\r\n', at);
    if (end < 0) break;
    const lines = bytes.subarray(at, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0]!)?.[1]);
    if (!Number.isInteger(status)) break;
    const headers = new Map(lines.slice(1).map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    let bodyStart = end + 4;
    let body: Buffer;
    if (status === 101 || status === 304 || status === 204) {
      body = Buffer.alloc(0);
    } else if (headers.get('transfer-encoding')?.includes('chunked')) {
      const parts: Buffer[] = [];
      for (;;) {
        const lineEnd = bytes.indexOf('\r\n', bodyStart);
        if (lineEnd < 0) break;
        const size = parseInt(bytes.subarray(bodyStart, lineEnd).toString('latin1'), 16);
        if (!Number.isFinite(size)) break;
        bodyStart = lineEnd + 2;
        if (size === 0) {
          bodyStart = bytes.indexOf('\r\n', bodyStart) + 2 || bytes.length;
          break;
        }
        parts.push(bytes.subarray(bodyStart, bodyStart + size));
        bodyStart += size + 2;
      }
      body = Buffer.concat(parts);
    } else if (headers.has('content-length')) {
      body = bytes.subarray(bodyStart, bodyStart + Number(headers.get('content-length')));
      bodyStart += body.length;
    } else {
      body = bytes.subarray(bodyStart);
      bodyStart = bytes.length;
    }
    answers.push({ status, contentType: headers.get('content-type') ?? null, body: body.length > 0 ? body.toString('utf8') : undefined });
    if (status === 101) break; // WebSocket frames follow, not HTTP
    at = bodyStart;
  }
  return answers;
}
