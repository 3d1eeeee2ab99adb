/**
 * A lean client of OUR `/ws` protocol (docs/noide-protocol.md) for the benches: one undici WebSocket, request
 * frames `{id, command, args}` matched to their replies by id, events handed to one listener. No timer per
 * call (a bench times its calls; a test client's per-call timeout would be measured too): a call still
 * pending when the socket closes fails.
 */
import { WebSocket } from 'undici';

export interface RpcReply {
  id: number;
  ok: boolean;
  result?: unknown;
  error?: string;
}

export interface RpcEvent {
  event: string;
  payload: unknown;
}

export class RpcSocket {
  /** Every event frame goes here (replace it to follow a session's output). */
  onEvent: (event: RpcEvent) => void = () => {};
  readonly closed: Promise<void>;
  #nextId = 1;
  readonly #pending = new Map<number, { resolve: (reply: RpcReply) => void; reject: (error: Error) => void }>();

  private constructor(private readonly ws: WebSocket) {
    this.closed = new Promise((resolve) =>
      ws.addEventListener('close', (event) => {
        for (const { reject } of this.#pending.values()) reject(new Error(`/ws closed (${event.code} ${event.reason})`));
        this.#pending.clear();
        resolve();
      }),
    );
    ws.addEventListener('message', (event) => {
      if (typeof event.data !== 'string') return; // the protocol is text frames only
      const frame = JSON.parse(event.data) as Record<string, unknown>;
      if (typeof frame.event === 'string') {
        this.onEvent(frame as unknown as RpcEvent);
        return;
      }
      const waiter = this.#pending.get(frame.id as number);
      if (!waiter) throw new Error(`/ws: unexpected frame ${event.data.slice(0, 200)}`);
      this.#pending.delete(frame.id as number);
      waiter.resolve(frame as unknown as RpcReply);
    });
  }

  /** Opens `/ws?token=` on `baseUrl` (http://host:port). */
  static async connect(baseUrl: string, token: string): Promise<RpcSocket> {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/ws?token=${encodeURIComponent(token)}`);
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener('open', () => resolve(), { once: true });
      ws.addEventListener('error', () => reject(new Error(`WebSocket to ${baseUrl}/ws failed`)), { once: true });
    });
    return new RpcSocket(ws);
  }

  /** Sends a request frame; resolves with its whole reply frame. */
  call(command: string, args: Record<string, unknown>): Promise<RpcReply> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ id, command, args }));
    });
  }

  /** `call`, expecting `ok: true`: resolves with `result`, or fails with the protocol's error text. */
  async ok(command: string, args: Record<string, unknown>): Promise<unknown> {
    const reply = await this.call(command, args);
    if (!reply.ok) throw new Error(`/ws ${command} failed: ${reply.error}`);
    return reply.result;
  }

  close(): Promise<void> {
    this.ws.close();
    return this.closed;
  }
}
