/**
 * A bare `/ws` client for a daemon that may die at any moment: every call in flight fails as soon as the socket
 * closes (test/support/rpc-client.ts waits for its timeout instead), so a kill never leaves the load waiting.
 */
import { WebSocket } from 'undici';

export interface SocketReply {
  ok: boolean;
  result?: unknown;
  error?: string;
}

export class SocketClient {
  #nextId = 1;
  #closed = false;
  readonly #pending = new Map<number, { resolve: (reply: SocketReply) => void; reject: (error: Error) => void }>();

  private constructor(private readonly ws: WebSocket) {
    ws.addEventListener('message', (event) => {
      if (typeof event.data !== 'string') return;
      const frame = JSON.parse(event.data) as { id?: number } & SocketReply;
      const waiter = frame.id === undefined ? undefined : this.#pending.get(frame.id);
      if (waiter === undefined) return; // events (none asked for here)
      this.#pending.delete(frame.id!);
      waiter.resolve(frame);
    });
    const fail = () => {
      this.#closed = true;
      for (const waiter of this.#pending.values()) waiter.reject(new Error('socket closed'));
      this.#pending.clear();
    };
    ws.addEventListener('close', fail);
    ws.addEventListener('error', fail);
  }

  static async connect(baseUrl: string, token: string): Promise<SocketClient> {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/ws?token=${encodeURIComponent(token)}`);
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener('open', () => resolve(), { once: true });
      ws.addEventListener('error', () => reject(new Error('socket did not open')), { once: true });
    });
    return new SocketClient(ws);
  }

  get closed(): boolean {
    return this.#closed;
  }

  call(command: string, args: unknown): Promise<SocketReply> {
    if (this.#closed) return Promise.reject(new Error('socket closed'));
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ id, command, args }));
    });
  }

  close(): void {
    this.#closed = true;
    this.ws.close();
  }
}
