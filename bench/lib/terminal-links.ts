/**
 * The three ways a client reaches one of OUR terminals, behind one shape so the terminal benches drive them
 * alike (and alike to the raw node-pty anchor, bench/servers/pty-anchor.ts):
 *   ori    `/ws/terminal?token=` — an unnamed session; output as binary frames, `{"type":"input"}` text frames in
 *   named  `POST /terminals {name}` then the socket `/terminals/{name}?token=` — binary output after an
 *          `attached` text frame; `input` frames in; `DELETE /terminals/{name}` afterwards
 *   rpc    `/ws?token=` + `pty_spawn {sessionId, shell: /bin/sh}` — output as `pty-output` JSON events (text),
 *          keystrokes as `pty_write`; `DELETE /terminals/{id}` afterwards (the same manager's named session)
 * Every link is a fresh `/bin/sh` (dash: the server child runs with SHELL=/bin/sh) at 80×24.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'undici';
import { WebSocket } from 'undici';
import { agent } from './http-client.ts';
import { RpcSocket, type RpcEvent } from './rpc-socket.ts';

/** One chunk of output: raw bytes (binary frames) or text (`pty-output` data), with its size in bytes. */
export type OutputListener = (chunk: Uint8Array | string, bytes: number) => void;

export interface TerminalLink {
  /**
   * Receives every output chunk after the first (the prompt, which `open` waited for). Chunks that arrived
   * before a listener was set are handed over when it is.
   */
  listen(listener: OutputListener): void;
  write(data: string): void;
  /** Types `exit`, waits for the session's end (bounded), closes the socket and forgets the session. */
  close(): Promise<void>;
}

export type TerminalKind = 'ori' | 'named' | 'rpc';

export const TERMINAL_KINDS: readonly TerminalKind[] = ['ori', 'named', 'rpc'];

/** What each kind is called in the table. */
export const TERMINAL_LABELS: Record<TerminalKind, string> = {
  ori: '/ws/terminal',
  named: '/terminals/{name}',
  rpc: '/ws pty-output',
};

const OPEN_TIMEOUT_MS = 15_000;
const EXIT_GRACE_MS = 3_000;

export function openTerminal(kind: TerminalKind, baseUrl: string, token: string): Promise<TerminalLink> {
  if (kind === 'ori') return openSocketTerminal(`/ws/terminal`, baseUrl, token, async () => {});
  if (kind === 'named') return openNamedTerminal(baseUrl, token);
  return openRpcTerminal(baseUrl, token);
}

/** The prompt wait, the early-chunk queue and the listener hand-over every link shares. */
class Output {
  readonly prompt: Promise<void>;
  #seenPrompt = false;
  #listener: OutputListener | undefined;
  #queued: [Uint8Array | string, number][] = [];
  #resolvePrompt!: () => void;

  constructor() {
    this.prompt = new Promise((resolve) => (this.#resolvePrompt = resolve));
  }

  push(chunk: Uint8Array | string, bytes: number): void {
    if (!this.#seenPrompt) {
      this.#seenPrompt = true;
      this.#resolvePrompt();
    } else if (this.#listener) this.#listener(chunk, bytes);
    else this.#queued.push([chunk, bytes]);
  }

  listen(listener: OutputListener): void {
    this.#listener = listener;
    for (const [chunk, bytes] of this.#queued.splice(0)) listener(chunk, bytes);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms))),
  ]);
}

async function openSocketTerminal(path: string, baseUrl: string, token: string, forget: () => Promise<void>): Promise<TerminalLink> {
  const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}${path}?token=${encodeURIComponent(token)}`);
  ws.binaryType = 'arraybuffer';
  const output = new Output();
  const closed = new Promise<void>((resolve) => ws.addEventListener('close', () => resolve()));
  ws.addEventListener('message', (event) => {
    if (typeof event.data === 'string') return; // `attached` / `exit` announcements: not output
    const bytes = new Uint8Array(event.data as ArrayBuffer);
    output.push(bytes, bytes.byteLength);
  });
  await withTimeout(Promise.race([output.prompt, closed.then(() => Promise.reject(new Error(`${path}: closed before the prompt`)))]), OPEN_TIMEOUT_MS, path);
  return {
    listen: (listener) => output.listen(listener),
    write: (data) => ws.send(JSON.stringify({ type: 'input', data })),
    async close() {
      ws.send(JSON.stringify({ type: 'input', data: 'exit\r' }));
      // The server closes with 1000 once the shell has exited; close ourselves if it takes too long.
      const timer = setTimeout(() => ws.close(), EXIT_GRACE_MS);
      await closed;
      clearTimeout(timer);
      await forget();
    },
  };
}

async function http(method: 'POST' | 'DELETE', url: string, token: string, body?: unknown): Promise<void> {
  const response = await request(url, {
    dispatcher: agent,
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`${method} ${url} → ${response.statusCode}: ${text.slice(0, 300)}`);
}

function freshName(kind: string): string {
  return `bench-${kind}-${randomBytes(6).toString('hex')}`;
}

async function openNamedTerminal(baseUrl: string, token: string): Promise<TerminalLink> {
  const name = freshName('named');
  await http('POST', `${baseUrl}/terminals`, token, { name, cols: 80, rows: 24 });
  return openSocketTerminal(`/terminals/${name}`, baseUrl, token, () => http('DELETE', `${baseUrl}/terminals/${name}`, token));
}

async function openRpcTerminal(baseUrl: string, token: string): Promise<TerminalLink> {
  const sessionId = freshName('rpc');
  const socket = await RpcSocket.connect(baseUrl, token);
  const output = new Output();
  let exited!: () => void;
  const exit = new Promise<void>((resolve) => (exited = resolve));
  socket.onEvent = (event: RpcEvent) => {
    const payload = event.payload as { session_id: string; data?: string };
    if (payload.session_id !== sessionId) return;
    if (event.event === 'pty-output') output.push(payload.data!, Buffer.byteLength(payload.data!));
    else if (event.event === 'pty-exit') exited();
  };
  await socket.ok('pty_spawn', { sessionId, shell: '/bin/sh', cols: 80, rows: 24 });
  await withTimeout(output.prompt, OPEN_TIMEOUT_MS, `pty_spawn ${sessionId}`);
  const write = (data: string) => {
    // The reply (`null`) is not waited for: a keystroke is fire-and-forget, as the UI sends it.
    socket.call('pty_write', { sessionId, data }).then(
      (reply) => {
        if (!reply.ok) console.error(`[bench] pty_write failed: ${reply.error}`);
      },
      () => {},
    );
  };
  return {
    listen: (listener) => output.listen(listener),
    write,
    async close() {
      write('exit\r');
      await withTimeout(exit, EXIT_GRACE_MS, `pty-exit ${sessionId}`).catch(() => socket.call('pty_kill', { sessionId }));
      await socket.close();
      await http('DELETE', `${baseUrl}/terminals/${sessionId}`, token);
    },
  };
}
