/**
 * Terminal test fixtures: a fake pty (the test drives its output and exit and sees what the session did to
 * it), a fake server socket and a fake session client whose backlog the test controls (flow control), and a
 * real `/terminals/{name}` / `/ws/terminal` WebSocket client over undici.
 */
import { request as httpRequest } from 'node:http';
import { WebSocket } from 'undici';
import type { PtyAdapter, PtyProcess, PtySpawnOptions } from '../../adapters/pty/pty-adapter.ts';
import { CLIENT_HIGH_WATER_BYTES } from '../../core/terminals/delivery.ts';
import type { TerminalClient } from '../../core/terminals/terminal-manager.ts';
import type { ServerSocket } from '../../runtime/websocket.ts';
import { waitFor } from './processes.ts';
import { TEST_TOKEN } from './workspace.ts';

/** Lets timers of 0 ms run: a session starts delivering to a client on a later turn. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

export function bytesOf(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

export function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** A pty that records what the session does to it and lets the test drive output and exit. */
export class FakePty implements PtyProcess {
  static #nextPid = 4242;
  readonly pid = FakePty.#nextPid++;
  readonly writes: (string | Uint8Array)[] = [];
  readonly resizes: [number, number][] = [];
  kills = 0;
  paused = false;
  /** Every pause() and resume() in order: flow-control decisions, not just the final state. */
  readonly flow: ('pause' | 'resume')[] = [];
  exited = false;
  #data: ((data: Uint8Array) => void)[] = [];
  #exit: ((exit: { code: number | null; signal: number | null }) => void)[] = [];

  /** `exitOnKill`: a kill makes the program exit (code null) on a later microtask, as a real pty does. */
  constructor(readonly exitOnKill = false) {}

  write(data: string | Uint8Array) {
    this.writes.push(data);
  }
  resize(cols: number, rows: number) {
    this.resizes.push([cols, rows]);
  }
  onData(listener: (data: Uint8Array) => void) {
    this.#data.push(listener);
  }
  onExit(listener: (exit: { code: number | null; signal: number | null }) => void) {
    this.#exit.push(listener);
  }
  kill() {
    this.kills++;
    if (this.exitOnKill) queueMicrotask(() => this.emitExit(null));
  }
  pause() {
    this.paused = true;
    this.flow.push('pause');
  }
  resume() {
    this.paused = false;
    this.flow.push('resume');
  }
  emitData(bytes: Uint8Array | string) {
    const data = typeof bytes === 'string' ? bytesOf(bytes) : bytes;
    for (const listener of this.#data) listener(data);
  }
  emitExit(code: number | null) {
    if (this.exited) return;
    this.exited = true;
    for (const listener of this.#exit) listener({ code, signal: code === null ? 1 : null });
  }
}

export class FakePtyAdapter implements PtyAdapter {
  readonly spawned: { options: PtySpawnOptions; pty: FakePty }[] = [];
  fail = false;
  constructor(readonly exitOnKill = false) {}
  spawn(options: PtySpawnOptions): PtyProcess {
    if (this.fail) throw new Error('spawn failed');
    const pty = new FakePty(this.exitOnKill);
    this.spawned.push({ options, pty });
    return pty;
  }
  get last(): FakePty {
    const last = this.spawned.at(-1);
    if (!last) throw new Error('nothing was spawned');
    return last.pty;
  }
  async killAll() {}
}

/**
 * A server socket whose peer the test plays. With `countSends`, every `send` adds its size to
 * `bufferedAmount` (a peer that reads nothing until `drain()`), else the test sets `bufferedAmount` itself.
 */
export class FakeSocket implements ServerSocket {
  readonly sent: (string | Uint8Array)[] = [];
  readonly closes: { code: number | undefined; reason: string | undefined }[] = [];
  bufferedAmount = 0;
  #drain: (() => void)[] = [];
  #message: ((data: string | Uint8Array, isBinary: boolean) => void)[] = [];
  #close: ((code: number, reason: string) => void)[] = [];

  constructor(readonly countSends = false) {}

  send(data: string | Uint8Array) {
    this.sent.push(data);
    if (this.countSends) this.bufferedAmount += typeof data === 'string' ? bytesOf(data).length : data.length;
  }
  close(code?: number, reason?: string) {
    this.closes.push({ code, reason });
  }
  onDrain(listener: () => void) {
    this.#drain.push(listener);
  }
  onMessage(listener: (data: string | Uint8Array, isBinary: boolean) => void) {
    this.#message.push(listener);
  }
  onClose(listener: (code: number, reason: string) => void) {
    this.#close.push(listener);
  }
  /** The peer took everything queued. */
  drained() {
    this.bufferedAmount = 0;
    for (const listener of this.#drain) listener();
  }
  receiveText(text: string) {
    for (const listener of this.#message) listener(text, false);
  }
  receiveBinary(bytes: Uint8Array) {
    for (const listener of this.#message) listener(bytes, true);
  }
  peerClosed(code = 1000) {
    for (const listener of this.#close) listener(code, '');
  }
  /** The binary frames sent, joined. */
  output(): Uint8Array {
    return concat(this.sent.filter((frame): frame is Uint8Array => typeof frame !== 'string'));
  }
  /** The text frames sent, parsed. */
  texts(): unknown[] {
    return this.sent.filter((frame): frame is string => typeof frame === 'string').map((frame) => JSON.parse(frame));
  }
}

/**
 * A session client (core/terminals TerminalClient) that records what it is sent. It accepts `allowance`
 * sends (Infinity: all) and then reports a full socket until the test grants more and calls `drained()`.
 */
export class RecordingClient implements TerminalClient {
  readonly chunks: { offset: number; bytes: Uint8Array }[] = [];
  readonly exits: (number | null)[] = [];
  readonly drops: string[] = [];
  allowance = Infinity;

  send(bytes: Uint8Array, offset: number): void {
    this.chunks.push({ offset, bytes: bytes.slice() });
    this.allowance--;
  }
  get backlog(): number {
    return this.allowance > 0 ? 0 : CLIENT_HIGH_WATER_BYTES;
  }
  exit(code: number | null): void {
    this.exits.push(code);
  }
  drop(reason: string): void {
    this.drops.push(reason);
  }
  /** Everything received, joined. */
  received(): Uint8Array {
    return concat(this.chunks.map((chunk) => chunk.bytes));
  }
  /** One past the last byte received (where a reattach continues). */
  get cursor(): number {
    const last = this.chunks.at(-1);
    return last ? last.offset + last.bytes.length : 0;
  }
  /** Every chunk starts where the previous one ended: no gap, no duplicate. */
  contiguousFrom(from: number): boolean {
    let at = from;
    for (const chunk of this.chunks) {
      if (chunk.offset !== at) return false;
      at += chunk.bytes.length;
    }
    return true;
  }
}

export type TerminalFrame = { type: 'binary'; bytes: Uint8Array } | { type: 'text'; json: unknown };

/** A real WebSocket client of a terminal socket (`/terminals/{name}` or `/ws/terminal`). */
export class TerminalSocketClient {
  readonly frames: TerminalFrame[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  #decoder = new TextDecoder();
  #text = '';
  #bytes = 0;

  private constructor(readonly ws: WebSocket) {
    ws.binaryType = 'arraybuffer';
    this.closed = new Promise((resolve) => ws.addEventListener('close', (event) => resolve({ code: event.code, reason: event.reason })));
    ws.addEventListener('message', (event) => {
      if (typeof event.data === 'string') {
        this.frames.push({ type: 'text', json: JSON.parse(event.data) });
        return;
      }
      const bytes = new Uint8Array(event.data as ArrayBuffer);
      this.frames.push({ type: 'binary', bytes });
      this.#bytes += bytes.length;
      this.#text += this.#decoder.decode(bytes, { stream: true });
    });
  }

  /** Opens `path` (e.g. `/terminals/build?from=3`) on `serverUrl` with the test token. */
  static open(serverUrl: string, path: string, token: string | null = TEST_TOKEN): Promise<TerminalSocketClient> {
    const url = new URL(path, serverUrl.replace(/^http/, 'ws'));
    if (token !== null) url.searchParams.set('token', token);
    const client = new TerminalSocketClient(new WebSocket(url));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`WebSocket ${path} did not open in time`)), 5000);
      client.ws.addEventListener('open', () => {
        clearTimeout(timer);
        resolve(client);
      });
      client.ws.addEventListener('error', () => {
        clearTimeout(timer);
        reject(new Error(`WebSocket ${path} failed to open`));
      });
    });
  }

  /** Output so far, decoded. */
  text(): string {
    return this.#text;
  }
  /** How many output bytes arrived so far. */
  get received(): number {
    return this.#bytes;
  }
  output(): Uint8Array {
    return concat(this.frames.flatMap((frame) => (frame.type === 'binary' ? [frame.bytes] : [])));
  }
  texts(): unknown[] {
    return this.frames.flatMap((frame) => (frame.type === 'text' ? [frame.json] : []));
  }
  waitForText(pattern: RegExp, timeoutMs = 5000): Promise<RegExpMatchArray> {
    return waitFor(() => this.#text.match(pattern) ?? undefined, { timeoutMs, what: `terminal output matching ${pattern}` });
  }
  input(data: string): void {
    this.ws.send(JSON.stringify({ type: 'input', data }));
  }
  resize(cols: number, rows: number): void {
    this.ws.send(JSON.stringify({ type: 'resize', cols, rows }));
  }
  close(): Promise<{ code: number; reason: string }> {
    if (this.ws.readyState <= WebSocket.OPEN) this.ws.close();
    return this.closed;
  }
}

export interface RawUpgradeAnswer {
  status: number;
  body: string;
}

/**
 * A WebSocket handshake by hand, to see the exact HTTP answer to a refused upgrade (a browser's WebSocket
 * only says "failed"). Resolves with 101 and an empty body when the upgrade was accepted.
 */
export function rawUpgrade(url: string, headers: Record<string, string> = {}): Promise<RawUpgradeAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url.replace(/^ws/, 'http'), {
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', ...headers },
      timeout: 5000,
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, body: '' });
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('upgrade timed out')));
    req.on('error', reject);
    req.end();
  });
}
