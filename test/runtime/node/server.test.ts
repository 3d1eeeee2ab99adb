import { readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { request as httpRequest } from 'node:http';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetch, WebSocket } from 'undici';
import { startNodeServer, type NodeServer, type NodeServerOptions } from '../../../runtime/node/server.ts';
import { bytesWritten, isRunning, processesInSession, waitFor, usePlainShell } from '../../support/processes.ts';
import { TEST_TOKEN, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

interface TerminalClient {
  ws: WebSocket;
  /** Output so far, decoded. */
  text(): string;
  /** Frames received by kind: the server must only send binary. */
  frames: { binary: number; text: number };
  waitForText(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  input(data: string): void;
  closed: Promise<{ code: number; wasClean: boolean }>;
}

/** Opens /ws/terminal with undici's WebSocket; resolves once the handshake succeeded. */
function openTerminal(url: string, headers?: Record<string, string>): Promise<TerminalClient> {
  const ws = new WebSocket(url, headers ? { headers } : undefined);
  ws.binaryType = 'arraybuffer';
  const decoder = new TextDecoder();
  let text = '';
  const frames = { binary: 0, text: 0 };
  ws.addEventListener('message', (event) => {
    if (typeof event.data === 'string') {
      frames.text++;
      return;
    }
    frames.binary++;
    text += decoder.decode(new Uint8Array(event.data as ArrayBuffer), { stream: true });
  });
  const closed = new Promise<{ code: number; wasClean: boolean }>((resolve) =>
    ws.addEventListener('close', (event) => resolve({ code: event.code, wasClean: event.wasClean })),
  );
  const client: TerminalClient = {
    ws,
    text: () => text,
    frames,
    waitForText: (pattern, timeoutMs = 5000) =>
      waitFor(() => text.match(pattern) ?? undefined, { timeoutMs, what: `terminal output matching ${pattern}` }),
    input: (data) => ws.send(JSON.stringify({ type: 'input', data })),
    closed,
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('WebSocket did not open in time')), 5000);
    ws.addEventListener('open', () => {
      clearTimeout(timer);
      resolve(client);
    });
    ws.addEventListener('error', () => {
      clearTimeout(timer);
      reject(new Error('WebSocket failed to open'));
    });
  });
}

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A WebSocket handshake by hand, to see the exact HTTP answer to a refused upgrade. */
function rawUpgrade(url: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url.replace(/^ws/, 'http'), {
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        ...headers,
      },
      timeout: 5000,
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('upgrade timed out')));
    req.on('error', reject);
    req.end();
  });
}

describe('Node server', () => {
  let workspace: TempWorkspace;
  let servers: NodeServer[];
  let clients: TerminalClient[];
  let socketsToDestroy: { destroy(): void }[];

  async function start(options: Partial<NodeServerOptions> = {}): Promise<NodeServer> {
    const server = await startNodeServer({ root: workspace.root, auth: { token: TEST_TOKEN }, host: '127.0.0.1', port: 0, ...options });
    servers.push(server);
    return server;
  }

  /** `token: null` leaves the token out. */
  function wsUrl(server: NodeServer, path = '/ws/terminal', token: string | null = TEST_TOKEN): string {
    const url = new URL(path, server.url.replace(/^http/, 'ws'));
    if (token !== null) url.searchParams.set('token', token);
    return url.href;
  }

  async function terminal(server: NodeServer, headers?: Record<string, string>): Promise<TerminalClient> {
    const client = await openTerminal(wsUrl(server), headers);
    clients.push(client);
    return client;
  }

  usePlainShell();

  beforeEach(async () => {
    workspace = await tempWorkspace({ 'hello.txt': 'hi\n', 'sub/inner.txt': 'x' });
    servers = [];
    clients = [];
    socketsToDestroy = [];
  });

  afterEach(async () => {
    for (const client of clients) if (client.ws.readyState <= WebSocket.OPEN) client.ws.close();
    for (const socket of socketsToDestroy) socket.destroy();
    await Promise.all(servers.map((server) => server.close()));
    await workspace.cleanup();
  });

  it('listens on the requested host with the bound port in its URL', async () => {
    const server = await start();
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });

  it('serves GET /api/files with the token and answers 401 without it', async () => {
    const server = await start();
    const ok = await fetch(`${server.url}/api/files`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { path: string; entries: { name: string; isDir: boolean }[] };
    expect(body.path).toBe(workspace.root);
    expect(body.entries.map((entry) => [entry.name, entry.isDir])).toEqual([
      ['sub', true],
      ['hello.txt', false],
    ]);

    const denied = await fetch(`${server.url}/api/files`);
    expect(denied.status).toBe(401);
    expect(await denied.json()).toEqual({ error: 'missing or invalid token' });
  });

  it('serves /api/raw over the wire like in-process: ranges, multipart, 416, 304 (Node installs its own Response)', async () => {
    await writeFile(`${workspace.root}/data.txt`, '0123456789');
    const server = await start();
    const get = (headers: Record<string, string> = {}) =>
      fetch(`${server.url}/api/raw?path=data.txt`, { headers: { authorization: `Bearer ${TEST_TOKEN}`, ...headers } });
    const whole = await get();
    expect(whole.status).toBe(200);
    expect(await whole.text()).toBe('0123456789');
    expect(whole.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(whole.headers.get('x-content-type-options')).toBe('nosniff');
    const single = await get({ range: 'bytes=2-4' });
    expect([single.status, single.headers.get('content-range'), await single.text()]).toEqual([206, 'bytes 2-4/10', '234']);
    const multi = await get({ range: 'bytes=0-0,-2' });
    expect(multi.status).toBe(206);
    const boundary = multi.headers.get('content-type')!.match(/boundary=(\S+)/)![1];
    expect(await multi.text()).toBe(
      `--${boundary}\r\nContent-Range: bytes 0-0/10\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n0` +
        `\r\n--${boundary}\r\nContent-Range: bytes 8-9/10\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n89` +
        `\r\n--${boundary}--\r\n`,
    );
    const unsatisfiable = await get({ range: 'bytes=50-60' });
    expect([unsatisfiable.status, unsatisfiable.headers.get('content-range')]).toEqual([416, 'bytes */10']);
    const notModified = await get({ 'if-none-match': whole.headers.get('etag')! });
    expect([notModified.status, await notModified.text()]).toEqual([304, '']);
  });

  it('answers 426 to a plain GET /ws/terminal', async () => {
    const server = await start();
    const response = await fetch(`${server.url}/ws/terminal?token=${TEST_TOKEN}`);
    expect(response.status).toBe(426);
    expect(await response.json()).toEqual({ error: 'this endpoint needs a WebSocket upgrade' });
  });

  describe('/ws/terminal', () => {
    it('runs a shell in the workspace root: input in, binary output frames out', async () => {
      const server = await start();
      const client = await terminal(server);
      client.input('echo hi-$((1+2))\n');
      await client.waitForText(/hi-3/);
      // printf assembles the markers, so the echoed command line itself cannot match.
      client.input("printf '%s=%s %s=%s\\n' cwd \"$(pwd)\" term \"$TERM\"\n");
      const match = await client.waitForText(/cwd=(\S+) term=(\S+)/);
      expect(match[1]).toBe(workspace.root);
      expect(match[2]).toBe('xterm-256color');
      expect(client.frames.binary).toBeGreaterThan(0);
      expect(client.frames.text).toBe(0);
    });

    it('applies resize frames: stty size agrees', async () => {
      const server = await start();
      const client = await terminal(server);
      client.input('echo "size=$(stty size)"\n');
      await client.waitForText(/size=24 80/);
      client.ws.send(JSON.stringify({ type: 'resize', cols: 100, rows: 30 }));
      client.input('echo "size=$(stty size)"\n');
      await client.waitForText(/size=30 100/);
    });

    it('ignores malformed frames and keeps the session working', async () => {
      const server = await start();
      const client = await terminal(server);
      client.ws.send('not json at all');
      client.ws.send('{"type":"launch","data":"x"}');
      client.ws.send('{"type":"input","data":42}');
      client.ws.send('{"type":"resize","cols":-3,"rows":"tall"}');
      client.ws.send(new TextEncoder().encode('{"type":"input","data":"echo binary-$((5+5))\\n"}'));
      client.input('echo ok-$((2+2))\n');
      await client.waitForText(/ok-4/);
      expect(client.text()).not.toMatch(/binary-10/);
      expect(client.ws.readyState).toBe(WebSocket.OPEN);
    });

    it('closes the socket with 1000 when the shell exits', async () => {
      const server = await start();
      const client = await terminal(server);
      client.input('exit\n');
      const closed = await client.closed;
      expect(closed).toEqual({ code: 1000, wasClean: true });
    });

    it('kills the shell and its jobs when the client closes the socket', async () => {
      const server = await start();
      const client = await terminal(server);
      client.input('echo "shell=$$"; sleep 1000 & echo "job=$!"\n');
      const shellPid = Number((await client.waitForText(/shell=(\d+)/))[1]);
      const jobPid = Number((await client.waitForText(/job=(\d+)/))[1]);
      expect(isRunning(shellPid)).toBe(true);
      expect(isRunning(jobPid)).toBe(true);
      client.ws.close();
      await waitFor(() => !isRunning(shellPid) && !isRunning(jobPid), { timeoutMs: 5000, what: 'the shell and its job to die' });
    });

    it('refuses a bad or missing token with a 401 HTTP answer', async () => {
      const server = await start();
      const bad = await rawUpgrade(wsUrl(server, '/ws/terminal', 'wrong-token'));
      expect(bad.status).toBe(401);
      expect(bad.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(bad.body)).toEqual({ error: 'missing or invalid token' });
      const missing = await rawUpgrade(wsUrl(server, '/ws/terminal', null));
      expect(missing.status).toBe(401);
      await expect(openTerminal(wsUrl(server, '/ws/terminal', 'wrong-token'))).rejects.toThrow(/failed to open/);
    });

    it('accepts the token as a Bearer header too', async () => {
      const server = await start();
      const answer = await rawUpgrade(wsUrl(server, '/ws/terminal', null), { authorization: `Bearer ${TEST_TOKEN}` });
      expect(answer.status).toBe(101);
    });

    it('refuses a cross-origin upgrade with 403', async () => {
      const server = await start();
      const answer = await rawUpgrade(wsUrl(server), { origin: 'https://evil.example' });
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body)).toEqual({ error: 'origin not allowed' });
      await expect(openTerminal(wsUrl(server), { origin: 'https://evil.example' })).rejects.toThrow(/failed to open/);
    });

    it("accepts the server's own origin", async () => {
      const server = await start();
      const client = await terminal(server, { origin: server.url });
      client.input('echo same-$((1+1))\n');
      await client.waitForText(/same-2/);
    });

    it('accepts an origin listed in allowedOrigins', async () => {
      const server = await start({ allowedOrigins: ['https://ide.example'] });
      const client = await terminal(server, { origin: 'https://ide.example' });
      client.input('echo allowed-$((3+4))\n');
      await client.waitForText(/allowed-7/);
      const other = await rawUpgrade(wsUrl(server), { origin: 'https://other.example' });
      expect(other.status).toBe(403);
    });

    it('answers 404 to an upgrade on an unknown path', async () => {
      const server = await start();
      const answer = await rawUpgrade(wsUrl(server, '/ws/nope'));
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.body)).toEqual({ error: 'not found' });
    });

    it('answers an upgrade on a plain route with that route as plain HTTP, not a WebSocket', async () => {
      const server = await start();
      const answer = await rawUpgrade(wsUrl(server, '/api/files'));
      expect(answer.status).toBe(200);
      expect(answer.headers.connection).toBe('close');
      expect(JSON.parse(answer.body)).toHaveProperty('entries');
    });

    it('completes the handshake for a well-formed upgrade (the server wires its pty adapter in)', async () => {
      const server = await start();
      const answer = await rawUpgrade(wsUrl(server));
      expect(answer.status).toBe(101);
      expect(answer.headers.upgrade).toBe('websocket');
    });

    it('answers 400 to an upgrade whose Host header is not a host', async () => {
      const server = await start();
      const answer = await rawUpgrade(wsUrl(server), { host: 'not a host' });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toEqual({ error: 'malformed Host header or request target' });
    });
  });

  it('drops a peer that stops answering pings, and kills its shell', async () => {
    const server = await start({ heartbeatMs: 200 });
    // A raw handshake from a client that never answers pings.
    const shellPid = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(wsUrl(server).replace(/^ws/, 'http'), {
        headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' },
      });
      req.on('upgrade', (_res, socket) => {
        // Frames from a client must be masked: a 4-byte zero mask keeps the payload as is.
        const payload = Buffer.from(JSON.stringify({ type: 'input', data: 'echo "shell=$$"\n' }));
        socket.write(Buffer.concat([Buffer.from([0x81, 0x80 | payload.length, 0, 0, 0, 0]), payload]));
        let seen = '';
        socket.on('data', (chunk: Buffer) => {
          seen += chunk.toString('latin1');
          const match = seen.match(/shell=(\d+)/);
          if (match) resolve(Number(match[1]));
        });
        socket.on('error', () => {});
        socketsToDestroy.push(socket);
      });
      req.on('error', reject);
      req.end();
    });
    expect(isRunning(shellPid)).toBe(true);
    await waitFor(() => !isRunning(shellPid), { timeoutMs: 5000, what: 'the silent peer to be dropped' });
  });

  it('stops reading a flooding program while the client does not read, and loses nothing', async () => {
    const server = await start();
    const FLOOD = 48 * 1024 * 1024;
    const received: Buffer[] = [];
    let receivedBytes = 0;
    // The last 4 KiB seen, kept as data arrives: re-joining 48 MiB on every poll would starve this process's
    // event loop (the reader under test) on a busy machine.
    let tail = '';
    const socket = await new Promise<import('node:stream').Duplex>((resolve, reject) => {
      const req = httpRequest(wsUrl(server).replace(/^ws/, 'http'), {
        headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' },
      });
      req.on('upgrade', (_res, upgraded, head) => {
        if (head.length > 0) {
          received.push(head);
          tail = head.toString('latin1').slice(-4096);
        }
        upgraded.on('data', (chunk: Buffer) => {
          received.push(chunk);
          receivedBytes += chunk.length;
          tail = (tail + chunk.toString('latin1')).slice(-4096);
        });
        upgraded.on('error', () => {});
        socketsToDestroy.push(upgraded);
        resolve(upgraded);
      });
      req.on('error', reject);
      req.end();
    });
    const sendInput = (data: string) => {
      const payload = Buffer.from(JSON.stringify({ type: 'input', data }));
      const header = payload.length < 126 ? Buffer.from([0x81, 0x80 | payload.length]) : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
      socket.write(Buffer.concat([header, Buffer.alloc(4), payload])); // zero mask: payload as is
    };
    const seen = () => Buffer.concat(received).toString('latin1');
    sendInput('echo "shell=$$"\n');
    const shellPid = Number((await waitFor(() => seen().match(/shell=(\d+)/) ?? undefined, { what: 'the shell pid' }))[1]);

    socket.pause(); // a client that stops reading
    sendInput(`head -c ${FLOOD} /dev/zero | tr '\\0' a; echo "done=$((6*7))"\n`);
    const [tr] = await waitFor(() => processesInSession(shellPid, 'tr').length === 1 && processesInSession(shellPid, 'tr'), { what: 'tr to start' });
    // Once the buffers between the pty and the client are full, the producer must be blocked, not drained
    // into the daemon's memory: its write count stops moving while it is still alive. How soon the kernel's
    // socket buffers fill depends on the machine's load, so wait for the count to settle (a whole second
    // unchanged), then check it stays settled well below the flood.
    let before: number | undefined;
    await waitFor(
      async () => {
        const first = bytesWritten(tr!);
        await new Promise((resolve) => setTimeout(resolve, 1000));
        before = bytesWritten(tr!);
        return first !== undefined && first === before;
      },
      { timeoutMs: 20_000, intervalMs: 0, what: 'the flooding program to block' },
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = bytesWritten(tr!);
    expect(before).toBeDefined();
    expect(before).toBeLessThan(FLOOD / 2);
    expect(after).toBe(before);

    socket.resume();
    await waitFor(() => /done=42/.test(tail), { timeoutMs: 30_000, what: 'the flood to finish' });
    expect(receivedBytes).toBeGreaterThan(FLOOD);
  }, 60_000);

  describe('requests with an Upgrade offer that is not WebSocket (curl --http2 sends Upgrade: h2c)', () => {
    /** Sends one raw HTTP/1.1 request and returns everything the server sends until it closes. */
    function rawExchange(server: NodeServer, head: string, body: Buffer | string = ''): Promise<Buffer> {
      return new Promise((resolve, reject) => {
        const socket = connect(server.port, '127.0.0.1');
        const chunks: Buffer[] = [];
        socket.on('data', (chunk) => chunks.push(chunk));
        socket.on('end', () => resolve(Buffer.concat(chunks)));
        socket.on('error', reject);
        socket.setTimeout(10_000, () => reject(new Error('no answer')));
        socket.write(head.replace(/\n/g, '\r\n') + '\r\n');
        socket.write(body);
      });
    }
    const h2c = 'Connection: Upgrade, HTTP2-Settings\nUpgrade: h2c\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\n';

    it('serves them as ordinary requests: the body arrives and the answer is complete', async () => {
      const server = await start();
      const body = JSON.stringify({ content: 'via h2c offer' });
      const answer = await rawExchange(
        server,
        `PUT /api/file?path=offer.txt HTTP/1.1\nHost: 127.0.0.1\nAuthorization: Bearer ${TEST_TOKEN}\n${h2c}Content-Type: application/json\nContent-Length: ${Buffer.byteLength(body)}\n`,
        body,
      );
      expect(answer.toString('latin1')).toMatch(/^HTTP\/1\.1 200/);
      expect(answer.toString('latin1')).toContain(JSON.stringify({ path: `${workspace.root}/offer.txt`, status: 'saved' }));
      expect(await readFile(`${workspace.root}/offer.txt`, 'utf8')).toBe('via h2c offer');
    });

    it('streams a large /api/raw answer with backpressure, byte for byte', async () => {
      const big = Buffer.alloc(8 * 1024 * 1024);
      for (let i = 0; i < big.length; i += 4) big.writeUInt32LE(i, i);
      await writeFile(`${workspace.root}/big.bin`, big);
      const server = await start();
      const answer = await rawExchange(server, `GET /api/raw?path=big.bin HTTP/1.1\nHost: 127.0.0.1\nAuthorization: Bearer ${TEST_TOKEN}\n${h2c}`);
      const split = answer.indexOf('\r\n\r\n');
      const headText = answer.subarray(0, split).toString('latin1');
      expect(headText).toMatch(/^HTTP\/1\.1 200/);
      expect(headText.toLowerCase()).toContain(`content-length: ${big.length}`);
      expect(answer.subarray(split + 4).equals(big)).toBe(true);
    });

    it('refuses a chunked body with such an offer with 411, writing nothing', async () => {
      const server = await start();
      const answer = await rawExchange(
        server,
        `PUT /api/file?path=chunked.txt HTTP/1.1\nHost: 127.0.0.1\nAuthorization: Bearer ${TEST_TOKEN}\n${h2c}Transfer-Encoding: chunked\n`,
        '5\r\nhello\r\n0\r\n\r\n',
      );
      expect(answer.toString('latin1')).toMatch(/^HTTP\/1\.1 411/);
      await expect(readFile(`${workspace.root}/chunked.txt`)).rejects.toMatchObject({ code: 'ENOENT' });
    });
  });

  describe('without a token (--no-auth): DNS-rebinding defence', () => {
    function requestWithHost(server: NodeServer, host: string, path: string, headers: Record<string, string> = {}): Promise<number> {
      return new Promise((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port: server.port, path, headers: { host, ...headers } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('upgrade', (res, socket) => {
          socket.destroy();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    }

    it('answers only requests addressed to a loopback name or the bound address', async () => {
      const server = await start({ auth: { disabled: true } });
      expect(await requestWithHost(server, `127.0.0.1:${server.port}`, '/api/files')).toBe(200);
      expect(await requestWithHost(server, `localhost:${server.port}`, '/api/files')).toBe(200);
      expect(await requestWithHost(server, `evil.example:${server.port}`, '/api/files')).toBe(403);
      expect(await requestWithHost(server, `evil.example:${server.port}`, '/healthz')).toBe(403);
    });

    it('refuses a rebinding page opening a terminal', async () => {
      const server = await start({ auth: { disabled: true } });
      const status = await requestWithHost(server, `evil.example:${server.port}`, '/ws/terminal', {
        origin: `http://evil.example:${server.port}`,
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      });
      expect(status).toBe(403);
    });

    it('does not check Host when a token is required (a gateway may use any name)', async () => {
      const server = await start();
      expect(await requestWithHost(server, 'sandbox-7.gateway.example', '/api/files', { authorization: `Bearer ${TEST_TOKEN}` })).toBe(200);
    });
  });

  it('close() ends WebSockets with 1001, kills every shell and stops listening', async () => {
    const server = await start();
    const client = await terminal(server);
    client.input('echo "shell=$$"; sleep 1000 & echo "job=$!"\n');
    const shellPid = Number((await client.waitForText(/shell=(\d+)/))[1]);
    const jobPid = Number((await client.waitForText(/job=(\d+)/))[1]);
    // A keep-alive connection left idle must not hold close() up.
    await (await fetch(`${server.url}/healthz`)).text();

    await server.close();
    expect((await client.closed).code).toBe(1001);
    expect(isRunning(shellPid)).toBe(false);
    expect(isRunning(jobPid)).toBe(false);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    await server.close(); // idempotent
  });
});
