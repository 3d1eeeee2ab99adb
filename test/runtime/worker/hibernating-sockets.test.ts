import { describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { createWorkspaceApp } from '../../../runtime/app.ts';
import { HibernatingSockets, type HibernatableWebSocket } from '../../../runtime/worker/hibernating-sockets.ts';

/**
 * A socket that outlived its object's memory (the platform evicted a hibernating Durable Object): a new instance
 * gets the next message with nothing but the socket's attachment. It must re-run the upgrade request through the
 * app — checks included — and answer as if the connection had never slept. In-process, over the real app; the
 * upgrade itself (the 101 and acceptWebSocket) runs in workerd in test/runtime/worker.test.ts.
 */

class SleptSocket implements HibernatableWebSocket {
  readonly sent: string[] = [];
  closedWith: [number | undefined, string | undefined] | undefined;
  #waiters: (() => void)[] = [];
  constructor(private attachment: unknown) {}
  send(data: string | ArrayBuffer | Uint8Array): void {
    this.sent.push(typeof data === 'string' ? data : new TextDecoder().decode(data));
    for (const wake of this.#waiters.splice(0)) wake();
  }
  /** The `count`th frame sent, parsed, once it is. */
  async frame(count: number): Promise<unknown> {
    while (this.sent.length < count) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    return JSON.parse(this.sent[count - 1]!) as unknown;
  }
  close(code?: number, reason?: string): void {
    this.closedWith ??= [code, reason];
  }
  serializeAttachment(value: unknown): void {
    this.attachment = value;
  }
  deserializeAttachment(): unknown {
    return this.attachment;
  }
}

const app = createWorkspaceApp({
  fs: new MemoryFileSystem({ '/workspace/notes.txt': 'kept while asleep' }),
  root: '/workspace',
  basePath: '/w/sleepy',
  auth: { token: 'tok' },
  webSockets: true,
  limits: { rpcMaxMessageBytes: 1024 },
});
const fetchFor = async () => app.fetch;
const woken = () => new HibernatingSockets({ acceptWebSocket: () => expect.unreachable('a woken socket is accepted already') });

describe('a /ws socket after its Durable Object woke from hibernation', () => {
  it('the first message re-opens the connection through the app, then is answered', async () => {
    const socket = new SleptSocket({ url: 'http://edge.test/w/sleepy/ws?token=tok', headers: {} });
    await woken().message(socket, JSON.stringify({ id: 7, command: 'read_file', args: { path: 'notes.txt' } }), fetchFor);
    expect(await socket.frame(1)).toEqual({ id: 7, ok: true, result: 'kept while asleep' });
    expect(socket.closedWith).toBeUndefined();
  });

  it('credentials kept as headers work the same way', async () => {
    const socket = new SleptSocket({ url: 'http://edge.test/w/sleepy/ws', headers: { authorization: 'Bearer tok' } });
    await woken().message(socket, JSON.stringify({ id: 1, command: 'file_exists', args: { path: 'notes.txt' } }), fetchFor);
    expect(await socket.frame(1)).toEqual({ id: 1, ok: true, result: true });
  });

  it('a connection the app refuses now (its token no longer opens it) is closed 1008, the message unanswered', async () => {
    const socket = new SleptSocket({ url: 'http://edge.test/w/sleepy/ws?token=revoked', headers: {} });
    await woken().message(socket, JSON.stringify({ id: 1, command: 'read_file', args: { path: 'notes.txt' } }), fetchFor);
    expect(socket.closedWith).toEqual([1008, 'refused on resume: HTTP 401']);
    expect(socket.sent).toEqual([]);
  });

  it('a socket with no attachment cannot be resumed: closed 1011', async () => {
    const socket = new SleptSocket(null);
    await woken().message(socket, '{}', fetchFor);
    expect(socket.closedWith).toEqual([1011, 'this connection cannot be resumed']);
  });

  it('the route’s message cap holds after a wake: past it the socket closes 1009', async () => {
    const socket = new SleptSocket({ url: 'http://edge.test/w/sleepy/ws?token=tok', headers: {} });
    await woken().message(socket, JSON.stringify({ id: 1, command: 'read_file', args: { path: 'x'.repeat(2000) } }), fetchFor);
    expect(socket.closedWith).toEqual([1009, 'message too big']);
  });

  it('a close from the client reaches the connection once and completes the handshake', async () => {
    const sockets = woken();
    const socket = new SleptSocket({ url: 'http://edge.test/w/sleepy/ws?token=tok', headers: {} });
    await sockets.message(socket, JSON.stringify({ id: 1, command: 'file_exists', args: { path: 'notes.txt' } }), fetchFor);
    await socket.frame(1);
    sockets.closed(socket, 1005, '');
    expect(socket.closedWith).toEqual([1000, '']);
    // Later frames for a closed socket open nothing again without a message.
    sockets.closed(socket, 1000, '');
    expect(socket.sent).toHaveLength(1);
  });
});
