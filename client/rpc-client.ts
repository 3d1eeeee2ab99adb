/**
 * A typed client of the `/ws` protocol (docs/noide-protocol.md): calls matched to their replies by id whatever
 * order the replies come in, the server's events, a keepalive, and reconnecting after the connection drops. Only
 * the WebSocket API: it runs in browsers, Node (pass a `WebSocket`, e.g. undici's, where there is no global one) and
 * Workers. Types come from the command rows themselves (handlers/rpc/command-types.ts).
 */
import type { RpcArgs, RpcCommandName, RpcEvents, RpcResult } from '../handlers/rpc/command-types.ts';

/** The WebSocket constructor's shape this client uses (the WHATWG one). */
export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'close' | 'error' | 'message', listener: (event: { data?: unknown; code?: number }) => void): void;
}

export interface RpcClientOptions {
  /** The daemon's base URL (`http://127.0.0.1:8787`, or under its gateway's base path); `ws(s):` works too. */
  baseUrl: string;
  /** Sent as `?token=` (a browser cannot set headers on a WebSocket). */
  token?: string;
  /** Default: the global `WebSocket`. */
  WebSocket?: WebSocketConstructor;
  /** Reconnect after a drop, waiting `minDelayMs` doubling up to `maxDelayMs` (default 250 ms … 10 s); `false`: never. */
  reconnect?: false | { minDelayMs?: number; maxDelayMs?: number };
  /** Keepalive period (default 25 s): a connection silent for two periods is dropped and reconnected. */
  pingMs?: number;
}

export type RpcClientState = 'connecting' | 'open' | 'closed';

/** A reply with `ok: false`: `message` is the protocol's error text. */
export class RpcCallError extends Error {
  override readonly name = 'RpcCallError';
  constructor(
    message: string,
    readonly command: string,
  ) {
    super(message);
  }
}

/** The connection dropped (or the client closed) before the reply came: the command may or may not have run. */
export class RpcDisconnectedError extends Error {
  override readonly name = 'RpcDisconnectedError';
}

export interface CallOptions {
  /** Give up waiting after this long (the command may still run on the server). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface RpcClient {
  call<C extends RpcCommandName>(command: C, args: RpcArgs<C>, options?: CallOptions): Promise<RpcResult<C>>;
  /** Listens to a server event; returns the unsubscribe. */
  on<E extends keyof RpcEvents>(event: E, listener: (payload: RpcEvents[E]) => void): () => void;
  /** Listens to the connection's state: `open` again after a reconnect is when to re-attach terminals. */
  onState(listener: (state: RpcClientState) => void): () => void;
  /** Frames the server could not match to a call (`id: 0`, `invalid request: …`). */
  onProtocolError(listener: (message: string) => void): () => void;
  readonly state: RpcClientState;
  /** Closes for good: pending calls fail, no reconnect. */
  close(): void;
}

const OPEN = 1;
const DEFAULT_PING_MS = 25_000;

interface Pending {
  command: string;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

export function createRpcClient(options: RpcClientOptions): RpcClient {
  const found = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (found === undefined) throw new TypeError('no WebSocket here: pass options.WebSocket');
  const Socket: WebSocketConstructor = found;
  const url = socketUrl(options.baseUrl, options.token);
  const reconnect = options.reconnect === false ? undefined : { minDelayMs: 250, maxDelayMs: 10_000, ...options.reconnect };
  const pingMs = options.pingMs ?? DEFAULT_PING_MS;

  const pending = new Map<number, Pending>();
  /** Frames of calls made while not open: sent once the socket opens. */
  const outbox: string[] = [];
  const eventListeners = new Map<string, Set<(payload: unknown) => void>>();
  const stateListeners = new Set<(state: RpcClientState) => void>();
  const protocolErrorListeners = new Set<(message: string) => void>();
  let socket: WebSocketLike | undefined;
  let state: RpcClientState = 'connecting';
  let closedForGood = false;
  let nextId = 1;
  let delayMs = reconnect?.minDelayMs ?? 0;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let pingTimer: ReturnType<typeof setInterval> | undefined;
  let heardSincePing = true;

  const setState = (next: RpcClientState) => {
    if (state === next) return;
    state = next;
    for (const listener of [...stateListeners]) listener(next);
  };

  const failPending = (why: string) => {
    for (const [id, call] of pending) {
      pending.delete(id);
      call.reject(new RpcDisconnectedError(`${call.command}: ${why}`));
    }
    outbox.length = 0;
  };

  function connect(): void {
    setState('connecting');
    const current = new Socket(url);
    socket = current;
    current.addEventListener('open', () => {
      if (socket !== current) return;
      delayMs = reconnect?.minDelayMs ?? 0;
      setState('open');
      for (const frame of outbox.splice(0)) current.send(frame);
      heardSincePing = true;
      pingTimer = setInterval(() => {
        // Silent for a whole period after the last ping: the peer is gone without a close frame.
        if (!heardSincePing) return current.close(4000, 'keepalive timed out');
        heardSincePing = false;
        current.send('{"event":"__ping"}');
      }, pingMs);
    });
    current.addEventListener('message', (event) => {
      if (socket !== current || typeof event.data !== 'string') return;
      heardSincePing = true;
      receive(event.data);
    });
    current.addEventListener('close', () => {
      if (socket !== current) return;
      clearInterval(pingTimer);
      socket = undefined;
      failPending('the connection closed before the reply');
      if (closedForGood || reconnect === undefined) return setState('closed');
      setState('connecting');
      retryTimer = setTimeout(connect, delayMs);
      delayMs = Math.min(reconnect.maxDelayMs, Math.max(reconnect.minDelayMs, delayMs * 2));
    });
    current.addEventListener('error', () => {}); // a 'close' follows
  }

  function receive(text: string): void {
    let frame: { id?: unknown; ok?: unknown; result?: unknown; error?: unknown; event?: unknown; payload?: unknown };
    try {
      frame = JSON.parse(text) as typeof frame;
    } catch {
      return;
    }
    if (typeof frame.event === 'string') {
      if (frame.event === '__pong') return;
      for (const listener of [...(eventListeners.get(frame.event) ?? [])]) listener(frame.payload);
      return;
    }
    const call = typeof frame.id === 'number' ? pending.get(frame.id) : undefined;
    if (call === undefined) {
      if (frame.ok === false) for (const listener of [...protocolErrorListeners]) listener(String(frame.error));
      return;
    }
    pending.delete(frame.id as number);
    if (frame.ok === true) call.resolve(frame.result);
    else call.reject(new RpcCallError(String(frame.error), call.command));
  }

  connect();

  const subscribe = <T>(listeners: Set<T>, listener: T) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  };

  return {
    call(command, args, callOptions = {}) {
      if (closedForGood) return Promise.reject(new RpcDisconnectedError(`${command}: the client is closed`));
      const id = nextId++;
      const frame = JSON.stringify({ id, command, args });
      return new Promise((resolve, reject) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const settle = () => {
          clearTimeout(timer);
          callOptions.signal?.removeEventListener('abort', onAbort);
        };
        const onAbort = () => {
          if (!pending.delete(id)) return;
          settle();
          reject(callOptions.signal!.reason instanceof Error ? callOptions.signal!.reason : new Error(`${command}: aborted`));
        };
        pending.set(id, {
          command,
          resolve: (result) => {
            settle();
            resolve(result as never);
          },
          reject: (error) => {
            settle();
            reject(error);
          },
        });
        if (callOptions.signal?.aborted) return onAbort();
        callOptions.signal?.addEventListener('abort', onAbort, { once: true });
        if (callOptions.timeoutMs !== undefined) {
          timer = setTimeout(() => {
            if (pending.delete(id)) reject(new Error(`${command}: no reply within ${callOptions.timeoutMs} ms`));
          }, callOptions.timeoutMs);
        }
        if (socket !== undefined && socket.readyState === OPEN) socket.send(frame);
        else outbox.push(frame);
      });
    },
    on(event, listener) {
      let listeners = eventListeners.get(event);
      if (listeners === undefined) eventListeners.set(event, (listeners = new Set()));
      return subscribe(listeners, listener as (payload: unknown) => void);
    },
    onState: (listener) => subscribe(stateListeners, listener),
    onProtocolError: (listener) => subscribe(protocolErrorListeners, listener),
    get state() {
      return state;
    },
    close() {
      if (closedForGood) return;
      closedForGood = true;
      clearTimeout(retryTimer);
      clearInterval(pingTimer);
      failPending('the client closed before the reply');
      const current = socket;
      socket = undefined;
      current?.close(1000, 'client closed');
      setState('closed');
    },
  };
}

/** `…/ws?token=T` on the daemon's base URL, `http(s)` turned into `ws(s)`. */
function socketUrl(baseUrl: string, token: string | undefined): string {
  const url = new URL(baseUrl);
  url.protocol = url.protocol === 'https:' || url.protocol === 'wss:' ? 'wss:' : 'ws:';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/ws`;
  if (token !== undefined) url.searchParams.set('token', token);
  return url.toString();
}
