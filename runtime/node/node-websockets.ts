import { IncomingMessage, ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { jsonResponse } from '../errors/render.ts';
import { INTERNAL_ERROR_TEXT, logUnexpectedError, requestLabel } from '../errors/unexpected-error.ts';
import type { ServerSocket } from '../websocket.ts';
import type { RequestEnv } from '../app/app-options.ts';
import { badRequestTarget } from './request-target.ts';
import { routeUpgrade } from '../upgrade-route.ts';

/**
 * WebSocket upgrades for a node:http server (docs/architecture.md#mounting-in-another-fetch-server): the app
 * decides (auth, Origin, route) through its ordinary `fetch` with an upgrader in the request env, and `ws` performs
 * the handshake. The daemon's own server uses it, and so does a host that serves the app from its own
 * node:http server (`server.on('upgrade', app.handleUpgrade)`).
 */

/** Ping period: a peer that has not answered the previous ping by the next one is gone (its shell is killed). */
export const HEARTBEAT_MS = 30_000;
/** How long a refused upgrade's connection may linger for the client to read the answer. */
const REFUSED_UPGRADE_LINGER_MS = 2000;


export interface NodeWebSocketsOptions {
  /** The app's fetch, given an upgrader per request. */
  fetch(request: Request, env: RequestEnv): Promise<Response>;
  /** Serves a request whose Upgrade offer is not WebSocket as the ordinary request it also is. */
  serveOrdinary(req: IncomingMessage, res: ServerResponse): unknown;
  /** Ping period (default 30 s); a peer silent for two periods is dropped. */
  heartbeatMs?: number;
}

export interface NodeWebSockets {
  /** The server's 'upgrade' listener. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /**
   * Refuses new upgrades (503), closes open sockets (1001) and cuts pending handshakes; resolves when every
   * socket has closed or `graceMs` passed, then ends what is left.
   */
  close(graceMs: number): Promise<void>;
}

export function createNodeWebSockets({ fetch, serveOrdinary, heartbeatMs = HEARTBEAT_MS }: NodeWebSocketsOptions): NodeWebSockets {
  // `ws` enforces its cap per server (close 1009 past it): one server per cap a handler asks for.
  const servers = new Map<number, WebSocketServer>();
  const serverFor = (maxPayload: number) => {
    let wss = servers.get(maxPayload);
    if (!wss) {
      servers.set(maxPayload, (wss = new WebSocketServer({ noServer: true, maxPayload })));
      // A handshake `ws` refuses (no or a bad Sec-WebSocket-Key, an unknown version) is answered like every other
      // refused upgrade, `{"error"}` JSON, not ws's own text/html page.
      wss.on('wsClientError', (error: Error, socket: Duplex) => {
        const version = /Version/.test(error.message) ? { 'sec-websocket-version': '13, 8' } : undefined;
        void writeRawResponse(socket, jsonResponse({ error: `invalid WebSocket handshake: ${error.message}` }, 400, version));
      });
    }
    return wss;
  };
  const webSockets = new Set<WebSocket>();
  const pendingUpgrades = new Set<Duplex>();
  // A vanished peer (laptop lid closed, network gone) sends no close frame; without pings its shell would live on.
  const alive = new WeakSet<WebSocket>();
  const heartbeat = setInterval(() => {
    for (const ws of webSockets) {
      if (!alive.has(ws)) {
        ws.terminate();
        continue;
      }
      alive.delete(ws);
      ws.ping();
    }
  }, heartbeatMs).unref();
  let closing = false;

  async function onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    pendingUpgrades.add(socket);
    socket.once('close', () => pendingUpgrades.delete(socket));
    socket.on('error', () => socket.destroy());

    // Without a Host header the URL is made from the address the connection came in on.
    const local = req.socket.localAddress === undefined ? 'localhost' : `${formatHost(req.socket.localAddress)}:${req.socket.localPort}`;
    const refusal = badRequestTarget(req, local);
    if (refusal !== undefined) return writeRawResponse(socket, jsonResponse({ error: refusal }, 400));
    let request: Request;
    try {
      request = toFetchRequest(req, local);
    } catch {
      return writeRawResponse(socket, jsonResponse({ error: 'malformed request' }, 400));
    }

    const routed = await routeUpgrade(request, fetch);
    if (routed.kind === 'answer') return writeRawResponse(socket, routed.response);
    const { onOpen: open, maxMessageBytes: maxPayload } = routed;
    if (closing) return writeRawResponse(socket, jsonResponse({ error: 'server is shutting down' }, 503));
    if (socket.destroyed) return;
    serverFor(maxPayload).handleUpgrade(req, socket, head, (ws) => {
      pendingUpgrades.delete(socket);
      webSockets.add(ws);
      alive.add(ws);
      ws.on('pong', () => alive.add(ws));
      ws.once('close', () => {
        webSockets.delete(ws);
        alive.delete(ws);
      });
      ws.on('error', () => {}); // protocol errors close the socket; 'close' does the cleanup
      try {
        open(adaptWebSocket(ws));
      } catch (error) {
        logUnexpectedError(`WebSocket ${requestLabel(request)}`, error);
        ws.close(1011, INTERNAL_ERROR_TEXT);
      }
    });
  }

  return {
    handleUpgrade(req, socket, head) {
      if (closing) {
        socket.destroy();
        return;
      }
      if (req.headers.upgrade?.toLowerCase() !== 'websocket') {
        serveIgnoringUpgrade(req, socket, head, serveOrdinary);
        return;
      }
      onUpgrade(req, socket, head).catch((error: unknown) => {
        logUnexpectedError(`upgrade ${req.method} ${req.url?.split('?')[0]}`, error);
        socket.destroy();
      });
    },
    async close(graceMs) {
      closing = true;
      clearInterval(heartbeat);
      for (const ws of webSockets) ws.close(1001, 'server shutting down');
      for (const socket of pendingUpgrades) socket.destroy();
      await allClosed(webSockets, graceMs);
      for (const ws of webSockets) ws.terminate();
      for (const wss of servers.values()) wss.close();
    },
  };
}

/** IPv6 literals need brackets in URLs and Host headers. */
export function formatHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * Node 20 hands every request carrying an Upgrade header to the 'upgrade' listeners (there is no per-request
 * opt-out before Node 22) and stops parsing there. An upgrade to anything but WebSocket (curl --http2 offers
 * `Upgrade: h2c`) is served as the ordinary request it also is — RFC 9110 §7.8 lets a server ignore the offer —
 * through the same handler as every other request, so its body arrives and its response streams. The body is
 * fed from what follows on the socket, up to Content-Length; the connection closes after the response.
 */
function serveIgnoringUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  handle: (req: IncomingMessage, res: ServerResponse) => unknown,
): void {
  socket.on('error', () => socket.destroy());
  if (req.headers['transfer-encoding'] !== undefined) {
    void writeRawResponse(socket, jsonResponse({ error: 'a chunked body cannot come with an Upgrade offer; send Content-Length' }, 411));
    return;
  }
  // Node has already ended `req` (an upgrade request has no body for it): carry its head into a fresh
  // message whose body we feed ourselves.
  const message = new IncomingMessage(socket as Socket);
  message.method = req.method;
  message.url = req.url;
  message.httpVersionMajor = req.httpVersionMajor;
  message.httpVersionMinor = req.httpVersionMinor;
  message.httpVersion = req.httpVersion;
  message.headers = req.headers;
  message.rawHeaders = req.rawHeaders;
  const response = new ServerResponse(message);
  response.shouldKeepAlive = false;
  response.assignSocket(socket as Socket);
  response.once('finish', () => socket.end());
  // node:http wires a socket's 'drain' to its current response; this socket left node:http at the upgrade.
  socket.on('drain', () => {
    if (!response.writableFinished) response.emit('drain');
  });
  let remaining = Number(req.headers['content-length'] ?? 0) || 0;
  const feed = (chunk: Buffer) => {
    if (remaining <= 0) return;
    const part = chunk.subarray(0, remaining);
    remaining -= part.length;
    message.push(part);
    if (remaining === 0) {
      socket.off('data', feed);
      message.complete = true;
      message.push(null);
    }
  };
  if (remaining === 0) {
    message.complete = true;
    message.push(null);
  } else {
    feed(head);
    if (remaining > 0) {
      socket.on('data', feed);
      // A client that hangs up (or half-closes: no more body can come) mid-body: fail the body read instead of
      // leaving the handler waiting.
      const cutShort = () => {
        if (remaining > 0) message.destroy(new Error('client closed the connection before the body was complete'));
      };
      socket.once('end', cutShort);
      socket.once('close', cutShort);
    }
  }
  void handle(message, response);
}

/** The upgrade request as a fetch Request: full URL from the Host header (or the bound address). */
function toFetchRequest(req: IncomingMessage, fallbackHost: string): Request {
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? fallbackHost}`);
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  return new Request(url, { method: req.method ?? 'GET', headers });
}

/** Answers a refused upgrade on the raw socket (status line, headers, body), then ends the connection. */
async function writeRawResponse(socket: Duplex, response: Response): Promise<void> {
  let body: Buffer;
  try {
    body = Buffer.from(await response.arrayBuffer());
  } catch {
    body = Buffer.alloc(0);
  }
  if (socket.destroyed) return;
  const reason = STATUS_CODES[response.status] ?? '';
  const lines = [`HTTP/1.1 ${response.status} ${reason}`];
  response.headers.forEach((value, name) => {
    if (name !== 'content-length' && name !== 'connection' && name !== 'transfer-encoding') lines.push(`${name}: ${value}`);
  });
  lines.push(`content-length: ${body.byteLength}`, 'connection: close');
  socket.end(Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1'), body]));
  // Not destroyed at once: a reset could discard the answer before the client has read it.
  setTimeout(() => socket.destroy(), REFUSED_UPGRADE_LINGER_MS).unref();
}

/**
 * A producer held back by a full socket hears `drain` once the queue falls below this, not only when it is
 * empty: refilled while the kernel still has bytes to send, the connection never idles between batches.
 */
const DRAIN_LOW_WATER_BYTES = 64 * 1024;

/** `ws`'s socket behind the runtime-neutral ServerSocket seam (runtime/websocket.ts). */
function adaptWebSocket(ws: WebSocket): ServerSocket {
  // Counted here rather than read from ws.bufferedAmount: the send callback tells us when bytes left, which
  // is the moment a paused producer may resume.
  let pending = 0;
  let aboveLowWater = false;
  const drainListeners: (() => void)[] = [];
  return {
    send(data) {
      if (ws.readyState !== WebSocket.OPEN) return;
      const size = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
      pending += size;
      if (pending >= DRAIN_LOW_WATER_BYTES) aboveLowWater = true;
      ws.send(data, { binary: typeof data !== 'string' }, (error) => {
        pending -= size;
        // A send that failed belongs to a dying socket: it is not room to send more ('close' follows).
        if (error || !aboveLowWater || pending >= DRAIN_LOW_WATER_BYTES) return;
        aboveLowWater = false;
        for (const listener of drainListeners) listener();
      });
    },
    get bufferedAmount() {
      return pending;
    },
    get inTransitBytes() {
      // libuv's count of the current write's unsent bytes: it falls as the kernel takes them.
      return (ws as unknown as { _socket?: { _handle?: { writeQueueSize?: number } } })._socket?._handle?.writeQueueSize;
    },
    onDrain(listener) {
      drainListeners.push(listener);
    },
    close(code, reason) {
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(code, reason);
    },
    onMessage(listener) {
      ws.on('message', (data: RawData, isBinary: boolean) => {
        const bytes = toBuffer(data);
        // A throw here would unwind through ws's parser into an uncaught exception: the daemon would exit.
        try {
          listener(isBinary ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : bytes.toString('utf8'), isBinary);
        } catch (error) {
          logUnexpectedError('a WebSocket message handler', error);
          if (ws.readyState === WebSocket.OPEN) ws.close(1011, INTERNAL_ERROR_TEXT);
        }
      });
    },
    onClose(listener) {
      ws.once('close', (code: number, reason: Buffer) => {
        try {
          listener(code, reason.toString('utf8'));
        } catch (error) {
          logUnexpectedError('a WebSocket close handler', error);
        }
      });
    },
  };
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

function allClosed(sockets: Set<WebSocket>, timeoutMs: number): Promise<void> {
  const waits = [...sockets].map(
    (ws) => new Promise<void>((resolve) => (ws.readyState === WebSocket.CLOSED ? resolve() : ws.once('close', () => resolve()))),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
  return Promise.race([Promise.all(waits), timeout]).then(() => clearTimeout(timer));
}
