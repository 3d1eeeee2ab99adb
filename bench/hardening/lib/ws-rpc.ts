/**
 * A `/ws` protocol client (docs/noide-protocol.md) on the `ws` package, for the hardening runs: replies matched by
 * id with a deadline each (a reply that never comes is an error here, not a hang), events to one listener, and
 * `pause()` to stop reading the socket altogether (a client that never reads: TCP backpressure reaches the daemon).
 * Every close the client did not ask for is reported to `onUnexpectedClose`.
 */
import WebSocket from 'ws';

export interface RpcReply {
  id: number;
  ok: boolean;
  result?: unknown;
  error?: string;
}

export interface RpcEvent {
  event: string;
  payload: Record<string, unknown>;
}

/** Opens a WebSocket and waits for it to be open; rejects on an error or after `timeoutMs`. */
export function openWebSocket(url: string, timeoutMs = 60_000): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`no open within ${timeoutMs} ms: ${url.replace(/token=[^&]*/, 'token=…')}`));
    }, timeoutMs);
    ws.once('open', () => {
      clearTimeout(timer);
      resolve(ws);
    });
    ws.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    ws.once('unexpected-response', (_request, response) => {
      clearTimeout(timer);
      reject(new Error(`upgrade refused: HTTP ${response.statusCode}`));
      ws.terminate();
    });
  });
}

export class WsRpc {
  onEvent: (event: RpcEvent) => void = () => {};
  onUnexpectedClose: (code: number, reason: string) => void = () => {};
  readonly #pending = new Map<number, { resolve: (reply: RpcReply) => void; reject: (error: Error) => void; timer: ReturnType<typeof setTimeout> }>();
  #nextId = 1;
  #closing = false;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const frame = JSON.parse(data.toString()) as Record<string, unknown>;
      if (typeof frame.event === 'string') return this.onEvent(frame as unknown as RpcEvent);
      const waiter = this.#pending.get(frame.id as number);
      if (!waiter) return;
      this.#pending.delete(frame.id as number);
      clearTimeout(waiter.timer);
      waiter.resolve(frame as unknown as RpcReply);
    });
    ws.on('error', () => {}); // 'close' follows and says it
    ws.on('close', (code, reason) => {
      for (const waiter of this.#pending.values()) {
        clearTimeout(waiter.timer);
        waiter.reject(new Error(`/ws closed (${code}) with the call pending`));
      }
      this.#pending.clear();
      if (!this.#closing) this.onUnexpectedClose(code, reason.toString());
    });
  }

  static async connect(baseUrl: string, token: string): Promise<WsRpc> {
    return new WsRpc(await openWebSocket(`${baseUrl.replace(/^http/, 'ws')}/ws?token=${encodeURIComponent(token)}`));
  }

  get open(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** Sends a request; resolves with its reply (ok or not), rejects when none comes within `timeoutMs`. */
  call(command: string, args: Record<string, unknown> = {}, timeoutMs = 60_000): Promise<RpcReply> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`${command}: no reply within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, { resolve, reject, timer });
      this.ws.send(JSON.stringify({ id, command, args }));
    });
  }

  /** A call whose failure is an error: resolves with its result. */
  async ok(command: string, args: Record<string, unknown> = {}, timeoutMs?: number): Promise<unknown> {
    const reply = await this.call(command, args, timeoutMs);
    if (!reply.ok) throw new Error(`${command}: ${reply.error}`);
    return reply.result;
  }

  pause(): void {
    this.ws.pause();
  }

  resume(): void {
    this.ws.resume();
  }

  /** Closes on purpose (not reported as unexpected); resolves once closed (forced after 3 s). */
  close(): Promise<void> {
    return closeOnPurpose(this.ws, () => (this.#closing = true));
  }
}

/** Close 1000, wait for the close handshake, terminate after 3 s: a socket the run closes is never left open. */
export function closeOnPurpose(ws: WebSocket, before: () => void = () => {}): Promise<void> {
  before();
  if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => ws.terminate(), 3000);
    ws.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    ws.resume();
    if (ws.readyState === WebSocket.OPEN) ws.close(1000);
    else if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
  });
}
