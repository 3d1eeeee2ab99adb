import { INTERNAL_ERROR_TEXT, logUnexpectedError } from '../errors/unexpected-error.ts';
import type { RequestEnv } from '../app/app-options.ts';
import { routeUpgrade, type AcceptedUpgrade } from '../upgrade-route.ts';
import type { ServerSocket } from '../websocket.ts';

/**
 * WebSocket upgrades inside a Durable Object with the hibernation API (docs/architecture.md#cloudflare-workers): the
 * app decides each upgrade through its ordinary `fetch` with an upgrader, as on Node (runtime/websocket.ts); the
 * object accepts the server end with `ctx.acceptWebSocket`, so an idle connection costs nothing — the platform may
 * evict the object while the socket stays open, and wakes a new instance with the next message.
 *
 * A woken instance has none of the old one's memory, so each socket carries what it needs to be opened again: the
 * upgrade request's URL and credentials (its attachment, kept by the platform with the socket). The first message
 * after a wake re-runs that request through the app — auth, Origin and route checked again — and hands the socket to
 * the route's handler as if it had just opened; then the message is delivered. A `/ws` connection holds no state
 * worth keeping across a wake: the object only hibernates with no request in flight.
 *
 * Flow control: workerd does not tell how much of a socket's output is unsent, so `bufferedAmount` reads 0 and
 * `onDrain` never fires; the platform buffers.
 */

/** The part of workerd's WebSocket used here. */
export interface HibernatableWebSocket {
  send(data: string | ArrayBuffer | Uint8Array): void;
  close(code?: number, reason?: string): void;
  serializeAttachment(value: unknown): void;
  deserializeAttachment(): unknown;
}

/** The part of a Durable Object's `ctx` used here. */
export interface HibernationState {
  acceptWebSocket(socket: HibernatableWebSocket): void;
}

/** What a socket keeps to be opened again after a wake (the platform caps an attachment at 2 KiB). */
interface Attachment {
  url: string;
  headers: Record<string, string>;
}

/** Request headers the app's checks read on an upgrade: credentials and the page's origin. */
const KEPT_HEADERS = ['authorization', 'x-intentic-control', 'origin', 'host'];


type AppFetch = (request: Request, env: RequestEnv) => Promise<Response>;


/** One open socket's handler side: what the route registered. */
interface Live {
  deliver(data: string | ArrayBuffer): void;
  closed(code: number, reason: string): void;
}

declare const WebSocketPair: new () => { 0: HibernatableWebSocket; 1: HibernatableWebSocket };

export class HibernatingSockets {
  readonly #state: HibernationState;
  readonly #live = new Map<HibernatableWebSocket, Live>();

  constructor(state: HibernationState) {
    this.#state = state;
  }

  /** Serves an upgrade request: the app's refusal as it answered, or 101 with the client end of an accepted socket. */
  async upgrade(request: Request, fetch: AppFetch): Promise<Response> {
    const routed = await routeUpgrade(request, fetch);
    if (routed.kind === 'answer') return routed.response;
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    this.#state.acceptWebSocket(server);
    server.serializeAttachment(attachmentOf(request));
    this.#open(server, routed, request);
    return new Response(null, { status: 101, webSocket: client } as ResponseInit);
  }

  /** A message for `socket` (the object's `webSocketMessage`); `fetchFor` gives the app again after a wake. */
  async message(socket: HibernatableWebSocket, data: string | ArrayBuffer, fetchFor: (url: string) => Promise<AppFetch>): Promise<void> {
    const live = this.#live.get(socket) ?? (await this.#reopen(socket, fetchFor));
    live?.deliver(data);
  }

  /** The client closed `socket`, or it failed (the object's `webSocketClose` / `webSocketError`). */
  closed(socket: HibernatableWebSocket, code: number, reason: string): void {
    const live = this.#live.get(socket);
    this.#live.delete(socket);
    live?.closed(code, reason);
    try {
      socket.close(code === 1005 || code === 1006 ? 1000 : code, reason); // completes the closing handshake
    } catch {
      // already closed
    }
  }

  async #reopen(socket: HibernatableWebSocket, fetchFor: (url: string) => Promise<AppFetch>): Promise<Live | undefined> {
    const attachment = socket.deserializeAttachment() as Attachment | null;
    if (!attachment) {
      socket.close(1011, 'this connection cannot be resumed');
      return undefined;
    }
    const request = new Request(attachment.url, { headers: { ...attachment.headers, upgrade: 'websocket', connection: 'Upgrade' } });
    const routed = await routeUpgrade(request, await fetchFor(attachment.url));
    if (routed.kind === 'answer') {
      // Refused now (a token revoked since, a route gone): the connection ends with the reason.
      socket.close(1008, `refused on resume: HTTP ${routed.response.status}`);
      return undefined;
    }
    return this.#open(socket, routed, request);
  }

  #open(socket: HibernatableWebSocket, accepted: AcceptedUpgrade, request: Request): Live {
    const messageListeners: ((data: string | Uint8Array, isBinary: boolean) => void)[] = [];
    const closeListeners: ((code: number, reason: string) => void)[] = [];
    let open = true;
    const live: Live = {
      deliver: (data) => {
        if (!open) return;
        const size = typeof data === 'string' ? new TextEncoder().encode(data).byteLength : data.byteLength;
        if (size > accepted.maxMessageBytes) return serverSocket.close(1009, 'message too big');
        const message = typeof data === 'string' ? data : new Uint8Array(data);
        for (const listener of messageListeners) {
          try {
            listener(message, typeof data !== 'string');
          } catch (error) {
            logUnexpectedError('a WebSocket message handler', error);
            serverSocket.close(1011, INTERNAL_ERROR_TEXT);
          }
        }
      },
      closed: (code, reason) => {
        if (!open) return;
        open = false;
        this.#live.delete(socket);
        for (const listener of closeListeners) {
          try {
            listener(code, reason);
          } catch (error) {
            logUnexpectedError('a WebSocket close handler', error);
          }
        }
      },
    };
    const serverSocket: ServerSocket = {
      send(data) {
        if (!open) return;
        try {
          socket.send(data);
        } catch {
          live.closed(1006, 'send failed');
        }
      },
      bufferedAmount: 0,
      onDrain() {},
      close(code, reason) {
        try {
          socket.close(code, reason);
        } catch {
          // already closing
        }
        live.closed(code ?? 1000, reason ?? '');
      },
      onMessage(listener) {
        messageListeners.push(listener);
      },
      onClose(listener) {
        closeListeners.push(listener);
      },
    };
    this.#live.set(socket, live);
    try {
      accepted.onOpen(serverSocket);
    } catch (error) {
      logUnexpectedError(`WebSocket ${new URL(request.url).pathname}`, error);
      serverSocket.close(1011, INTERNAL_ERROR_TEXT);
    }
    return live;
  }
}

function attachmentOf(request: Request): Attachment {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = request.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return { url: request.url, headers };
}
