/**
 * The NoIDE protocol the way its UI talks: a real WebSocket to `/ws` on a real Node server. `call` sends a
 * request frame and resolves with the whole reply frame (`{id, ok, result|error}`), matched by id; events are
 * collected in order and can be awaited.
 */
import { WebSocket } from 'undici';
import { startNodeServer, type NodeServer, type NodeServerOptions } from '../../runtime/node/server.ts';
import { TEST_TOKEN } from './workspace.ts';

export interface Reply {
  id: number | string;
  ok: boolean;
  result?: unknown;
  error?: string;
}

export interface EventFrame {
  event: string;
  payload: unknown;
}

export class RpcClient {
  readonly events: EventFrame[] = [];
  /** Every frame that was neither a reply to a pending call nor an event (e.g. `id: 0` errors). */
  readonly stray: unknown[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  #nextId = 1;
  readonly #pending = new Map<number | string, (reply: Reply) => void>();
  readonly #eventWaiters: { match: (event: EventFrame) => boolean; resolve: (event: EventFrame) => void }[] = [];

  private constructor(readonly ws: WebSocket) {
    this.closed = new Promise((resolve) => ws.addEventListener('close', (event) => resolve({ code: event.code, reason: event.reason })));
    ws.addEventListener('message', (event) => {
      if (typeof event.data !== 'string') {
        this.stray.push(event.data);
        return;
      }
      const frame = JSON.parse(event.data) as Record<string, unknown>;
      if (typeof frame.event === 'string') {
        const received = frame as unknown as EventFrame;
        this.events.push(received);
        for (const waiter of [...this.#eventWaiters]) {
          if (!waiter.match(received)) continue;
          this.#eventWaiters.splice(this.#eventWaiters.indexOf(waiter), 1);
          waiter.resolve(received);
        }
        return;
      }
      const resolve = this.#pending.get(frame.id as number | string);
      if (resolve) {
        this.#pending.delete(frame.id as number | string);
        resolve(frame as unknown as Reply);
      } else this.stray.push(frame);
    });
  }

  /** Opens `/ws` on `server` (token from TEST_TOKEN unless given; `null` sends none). */
  static async connect(server: { url: string }, token: string | null = TEST_TOKEN): Promise<RpcClient> {
    const url = new URL('/ws', server.url.replace(/^http/, 'ws'));
    if (token !== null) url.searchParams.set('token', token);
    const ws = new WebSocket(url);
    const client = new RpcClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener('open', () => resolve(), { once: true });
      ws.addEventListener('error', () => reject(new Error('WebSocket to /ws failed')), { once: true });
    });
    return client;
  }

  /** Sends `{id, command, args}` and resolves with the reply frame. */
  call(command: string, args?: unknown, { timeoutMs = 10_000 }: { timeoutMs?: number } = {}): Promise<Reply> {
    const id = this.#nextId++;
    const frame = args === undefined ? { id, command } : { id, command, args };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`no reply to ${command} (#${id}) within ${timeoutMs} ms`));
      }, timeoutMs);
      this.#pending.set(id, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
      this.ws.send(JSON.stringify(frame));
    });
  }

  /** `call`, expecting `ok: true`: resolves with `result`, or fails with the error text. */
  async ok(command: string, args?: unknown, options?: { timeoutMs?: number }): Promise<unknown> {
    const reply = await this.call(command, args, options);
    if (!reply.ok) throw new Error(`${command} failed: ${reply.error}`);
    return reply.result;
  }

  /** Sends a raw text frame (malformed-input tests). */
  sendRaw(text: string): void {
    this.ws.send(text);
  }

  /** Resolves with the first event (already received or coming) that `match` accepts. */
  waitForEvent(match: (event: EventFrame) => boolean, { timeoutMs = 10_000, since = 0 } = {}): Promise<EventFrame> {
    const seen = this.events.slice(since).find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching event within ${timeoutMs} ms`)), timeoutMs);
      this.#eventWaiters.push({
        match,
        resolve: (event) => {
          clearTimeout(timer);
          resolve(event);
        },
      });
    });
  }

  close(): Promise<{ code: number; reason: string }> {
    this.ws.close();
    return this.closed;
  }
}

/** A real Node server on a free loopback port over `root`, token auth with TEST_TOKEN, no OS watcher. */
export function startTestServer(root: string, overrides: Partial<NodeServerOptions> = {}): Promise<NodeServer> {
  return startNodeServer({ root, port: 0, auth: { token: TEST_TOKEN }, watch: false, ...overrides });
}
