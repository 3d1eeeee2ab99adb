/**
 * The `/ws` protocol over any WebSocket that has `send` and message events (undici's on Node, miniflare's for a
 * Durable Object): requests matched to replies by id, events kept, every text frame kept for the escape oracle.
 */
export interface MessageSocket {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  addEventListener(type: 'close', listener: (event: { code: number }) => void): void;
}

export interface WsReply {
  id: number | string;
  ok: boolean;
  result?: unknown;
  error?: string;
}

export class WsChannel {
  /** Every text frame received since the last `takeFrames()`: the oracle reads them whole. */
  #frames: string[] = [];
  #nextId = 1;
  readonly #pending = new Map<number, (reply: WsReply) => void>();
  readonly #eventWaiters: { event: string; id: string; resolve: (payload: unknown) => void }[] = [];
  readonly #events: { event: string; payload: unknown }[] = [];
  #closed = false;

  constructor(private readonly socket: MessageSocket) {
    socket.addEventListener('message', ({ data }) => {
      const text = typeof data === 'string' ? data : new TextDecoder().decode(data as ArrayBuffer);
      this.#frames.push(text);
      const frame = JSON.parse(text) as Record<string, unknown>;
      if (typeof frame.event === 'string') {
        const payload = frame.payload as { id?: unknown } | undefined;
        const waiter = this.#eventWaiters.find((w) => w.event === frame.event && w.id === payload?.id);
        if (waiter) {
          this.#eventWaiters.splice(this.#eventWaiters.indexOf(waiter), 1);
          waiter.resolve(frame.payload);
        } else this.#events.push({ event: frame.event, payload });
        return;
      }
      const resolve = this.#pending.get(frame.id as number);
      if (resolve) {
        this.#pending.delete(frame.id as number);
        resolve(frame as unknown as WsReply);
      }
    });
    socket.addEventListener('close', () => {
      this.#closed = true;
      for (const [id, resolve] of this.#pending) resolve({ id, ok: false, error: '(socket closed before the reply)' });
      this.#pending.clear();
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  call(command: string, args: Record<string, unknown>, timeoutMs = 30_000): Promise<WsReply> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`no reply to ${command} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
      this.socket.send(JSON.stringify({ id, command, args }));
    });
  }

  /** The payload of the event named `event` whose payload.id is `id` (already received or coming). */
  event(event: string, id: string, timeoutMs = 30_000): Promise<unknown> {
    const seen = this.#events.findIndex((e) => e.event === event && (e.payload as { id?: unknown } | undefined)?.id === id);
    if (seen >= 0) return Promise.resolve(this.#events.splice(seen, 1)[0]!.payload);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${event} for ${id} within ${timeoutMs} ms`)), timeoutMs);
      this.#eventWaiters.push({ event, id, resolve: (payload) => (clearTimeout(timer), resolve(payload)) });
    });
  }

  /** The frames received since the last call, and forgets them (and the events nobody waits for). */
  takeFrames(): string[] {
    const frames = this.#frames;
    this.#frames = [];
    this.#events.length = 0;
    return frames;
  }

  close(): void {
    this.socket.close(1000, 'done');
  }
}
