import { spawnSync } from 'node:child_process';
import { readdirSync, readlinkSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { addExtraAcceptors, type ExtraAcceptors } from '../../../runtime/node/extra-acceptors.ts';
import { startNodeServer } from '../../../runtime/node/server.ts';
import { TEST_TOKEN, tempWorkspace } from '../../support/workspace.ts';

/** The inode of the socket listening on `port` (from /proc/net/tcp: state 0A). */
function listeningInode(port: number): string {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A') return fields[9]!;
  }
  throw new Error(`nothing listens on port ${port}`);
}

/** How many of this process's descriptors are that socket. */
function descriptorsOf(inode: string, pid: number | 'self' = 'self'): number {
  let count = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`) count++;
    } catch {
      // closed while listed
    }
  }
  return count;
}

function listen(server: Server, backlog = 511): Promise<number> {
  return new Promise((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog }, () => resolve((server.address() as AddressInfo).port)));
}

/**
 * `count` connections made while this process cannot accept: the event loop is blocked in spawnSync while a child
 * connects them all (the kernel completes each handshake into the listening socket's queue) and exits.
 */
function queueConnections(port: number, count: number): void {
  const script = `const net = require('node:net'); let n = 0;
    for (let i = 0; i < ${count}; i++) net.connect(${port}, '127.0.0.1', () => { if (++n === ${count}) process.exit(0); });`;
  const result = spawnSync(process.execPath, ['-e', script], { timeout: 20_000 });
  if (result.status !== 0) throw new Error(`the connecting child failed: ${result.stderr}`);
}

/** Accepted connections per event-loop turn until `total` have been accepted (a setImmediate per turn). */
async function acceptsPerTurn(server: Server, total: number): Promise<number[]> {
  const perTurn: number[] = [0];
  let accepted = 0;
  server.on('connection', () => {
    perTurn[perTurn.length - 1]!++;
    accepted++;
  });
  await new Promise<void>((resolve, reject) => {
    const tick = () => {
      if (accepted >= total) return resolve();
      if (perTurn.length > 10 * total) return reject(new Error(`only ${accepted} of ${total} accepted`));
      perTurn.push(0);
      setImmediate(tick);
    };
    setImmediate(tick);
  });
  return perTurn.filter((n) => n > 0);
}

describe('extra accepting handles (runtime/node/extra-acceptors.ts)', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function plainServer(): Promise<{ server: Server; port: number }> {
    const server = createServer((_req, res) => res.end('ok'));
    const port = await listen(server);
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    return { server, port };
  }

  function extra(server: Server, count: number, options?: Parameters<typeof addExtraAcceptors>[3]): ExtraAcceptors {
    const acceptors = addExtraAcceptors(server, count, 511, options);
    cleanups.push(() => acceptors.close());
    return acceptors;
  }

  it('one handle takes one waiting connection per event-loop turn (the libuv behaviour this works around)', async () => {
    const { server, port } = await plainServer();
    queueConnections(port, 24);
    const turns = await acceptsPerTurn(server, 24);
    expect(Math.max(...turns)).toBe(1);
    expect(turns).toHaveLength(24);
  });

  it('eight handles take eight per turn: 64 waiting connections in 8 turns', async () => {
    const { server, port } = await plainServer();
    expect(await extra(server, 7).ready).toBe(7);
    expect(descriptorsOf(listeningInode(port))).toBe(8);
    queueConnections(port, 64);
    const turns = await acceptsPerTurn(server, 64);
    expect(turns).toEqual([8, 8, 8, 8, 8, 8, 8, 8]);
  });

  it("the extra handles' connections are the server's own, and no helper process is left once ready", async () => {
    const { server, port } = await plainServer();
    // Children of this process before (another file's lazily started helper may be one, in a shared worker).
    const children = () => readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim();
    const before = children();
    const acceptors = extra(server, 3);
    expect(await acceptors.ready).toBe(3);
    expect(children()).toBe(before);
    const answers = await Promise.all(Array.from({ length: 32 }, () => fetch(`http://127.0.0.1:${port}/`).then((r) => r.text())));
    expect(answers).toEqual(Array(32).fill('ok'));
  });

  it('a child process inherits none of the descriptors (they are close-on-exec)', async () => {
    const { server, port } = await plainServer();
    expect(await extra(server, 3).ready).toBe(3);
    const inode = listeningInode(port);
    const listing = spawnSync('sh', ['-c', 'ls -l /proc/$$/fd'], { encoding: 'utf8' });
    expect(listing.status).toBe(0);
    expect(listing.stdout).not.toContain(`socket:[${inode}]`);
  });

  it('close() closes every extra handle: with the server closed too, nothing listens', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    const port = await listen(server);
    const acceptors = addExtraAcceptors(server, 5, 511);
    expect(await acceptors.ready).toBe(5);
    const inode = listeningInode(port);
    await acceptors.close();
    await new Promise((resolve) => server.close(resolve));
    expect(descriptorsOf(inode)).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toMatchObject({ cause: { code: 'ECONNREFUSED' } });
  });

  it('a helper that cannot start: no extra handle, one line said, the server answers on its own', async () => {
    const { server, port } = await plainServer();
    const lines: string[] = [];
    const acceptors = extra(server, 4, { log: (line) => lines.push(line), mirrorCommand: ['/nonexistent/node'] });
    expect(await acceptors.ready).toBe(0);
    expect(lines).toEqual([expect.stringMatching(/^workspace-api: accepting on 1 handle\(s\), not 5: the helper process failed \(spawn \/nonexistent\/node ENOENT\)$/)]);
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('ok');
  });

  it('a helper that ends without answering: no extra handle, one line said', async () => {
    const { server } = await plainServer();
    const lines: string[] = [];
    const acceptors = extra(server, 2, { log: (line) => lines.push(line), mirrorCommand: [process.execPath, '-e', ''] });
    expect(await acceptors.ready).toBe(0);
    expect(lines).toEqual(['workspace-api: accepting on 1 handle(s), not 3: the helper process ended early']);
  });
});

describe('startNodeServer acceptors', () => {
  it('listens with `acceptors` handles on one socket (default 32) and closes them all', async () => {
    const workspace = await tempWorkspace();
    try {
      const server = await startNodeServer({ root: workspace.root, auth: { token: TEST_TOKEN }, port: 0, watch: false, acceptors: 4 });
      const inode = listeningInode(server.port);
      expect(server.acceptors).toBe(4);
      expect(descriptorsOf(inode)).toBe(4);
      expect((await fetch(`${server.url}/api/files`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } })).status).toBe(200);
      await server.close();
      expect(descriptorsOf(inode)).toBe(0);

      const byDefault = await startNodeServer({ root: workspace.root, auth: { token: TEST_TOKEN }, port: 0, watch: false });
      expect(byDefault.acceptors).toBe(32);
      expect(descriptorsOf(listeningInode(byDefault.port))).toBe(32);
      await byDefault.close();
    } finally {
      await workspace.cleanup();
    }
  });

  it("close() ends every connection, the extra handles' too: a request still sending its body is cut after the grace", async () => {
    const workspace = await tempWorkspace();
    try {
      const server = await startNodeServer({ root: workspace.root, auth: { token: TEST_TOKEN }, port: 0, watch: false, acceptors: 4 });
      // One at a time, each answered once before the next: on an idle daemon Linux wakes the handle registered last
      // first, so these land on an extra handle (the case the server's own close() does not wait for).
      const sockets: Socket[] = [];
      for (let i = 0; i < 6; i++) {
        const socket = connect(server.port, '127.0.0.1');
        socket.on('error', () => {});
        sockets.push(socket);
        const answered = new Promise((resolve) => socket.once('data', resolve));
        socket.write(`GET /api/files HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n\r\n`);
        await answered;
        socket.write(`PUT /api/file?path=held.txt HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n`);
        socket.write('Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"content":"');
      }
      const closed = sockets.map((socket) => new Promise((resolve) => socket.once('close', resolve)));
      await server.close();
      const ended = await Promise.race([Promise.all(closed).then(() => 'all closed'), new Promise((resolve) => setTimeout(resolve, 5000, 'some still open'))]);
      expect(ended).toBe('all closed');
    } finally {
      await workspace.cleanup();
    }
  });

  it('refuses a count outside 1–64 before listening', async () => {
    await expect(startNodeServer({ root: '/', port: 0, acceptors: 0 })).rejects.toThrow('acceptors: must be a whole number from 1 to 64, not 0');
    await expect(startNodeServer({ root: '/', port: 0, acceptors: 65 })).rejects.toThrow('acceptors: must be a whole number from 1 to 64, not 65');
    await expect(startNodeServer({ root: '/', port: 0, acceptors: 2.5 })).rejects.toThrow('not 2.5');
  });
});
