/**
 * A runtime-neutral WebSocket seam. Handlers stay plain fetch handlers: to accept an upgrade, a handler
 * calls `ctx.upgrade(onOpen)` and returns the Response it gets back, unchanged in status. The runtime then
 * performs the real handshake and calls `onOpen` with a ServerSocket; a runtime with no upgrader leaves
 * `ctx.upgrade` undefined and the handler refuses the request.
 *
 * The returned Response is a marker, not the wire answer: where Response may carry status 101 (Workers)
 * it is the real 101; on Node the WHATWG Response constructor rejects 101, so the Node upgrader
 * (runtime/upgrade-route.ts, for the Node server and a Durable Object) returns a bodiless 200 and accepts the upgrade when the upgrader was called during
 * this request and the app's final response still has that status. The decision rests on a per-request
 * flag, not on the Response object's identity, so wrappers that rebuild the Response (CORS) do not break
 * it. Any other answer (401, 403, 404, ...) is written to the client as a plain HTTP response.
 */
export interface ServerSocket {
  send(data: string | Uint8Array): void;
  /** Bytes handed to `send` that have not reached the network yet (flow control: a slow reader grows it). */
  readonly bufferedAmount: number;
  /**
   * Of the message being written now, the bytes the network has not taken yet, where the runtime can tell.
   * It falls as a slow reader reads, where `bufferedAmount` falls a whole message at a time: what tells a
   * slow client (a 50 MiB reply trickling out) from a stuck one.
   */
  readonly inTransitBytes?: number;
  /**
   * Called when `bufferedAmount`, having grown past the runtime's low-water mark, falls below it again (as
   * Node streams' 'drain'): the moment a producer that stopped at its high-water mark should send more.
   */
  onDrain(listener: () => void): void;
  close(code?: number, reason?: string): void;
  onMessage(listener: (data: string | Uint8Array, isBinary: boolean) => void): void;
  onClose(listener: (code: number, reason: string) => void): void;
}

export type SocketOpenHandler = (socket: ServerSocket) => void;

export interface UpgradeOptions {
  /**
   * The largest message the client may send; past it the runtime closes the socket with 1009 (Message Too
   * Big). docs/noide-protocol.md#frames: 64 MiB on `/ws` (an upload is one base64 frame), 1 MiB on terminal sockets.
   */
  maxMessageBytes?: number;
}

export type Upgrader = (onOpen: SocketOpenHandler, options?: UpgradeOptions) => Response;
