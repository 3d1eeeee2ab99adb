/**
 * Terminal clients over the three transports of the one session manager (docs/terminals.md): ori's unnamed
 * `/ws/terminal`, a named session's socket `/terminals/{name}`, and the `/ws` protocol's `pty_*` commands. A client
 * either reads everything (counting the bytes) or never reads (its socket paused from the start, so TCP backpressure
 * reaches the daemon, whose flow control must pause the program instead of buffering: the property under test).
 *
 * A paused client cannot see anything the daemon does meanwhile, its close frame included; `stop()` resumes it first
 * and classifies what it then finds: a named session's client that was dropped as stuck (close 1013 after
 * `terminalStallMs`) is documented behaviour, anything else is an error.
 */
import WebSocket from 'ws';
import type { Tally } from './tally.ts';
import { closeOnPurpose, openWebSocket, WsRpc } from './ws-rpc.ts';

export type TerminalTransport = 'ori' | 'named' | 'rpc';

export interface TerminalClientOptions {
  baseUrl: string;
  token: string;
  transport: TerminalTransport;
  /** The session's name (named and rpc). */
  name: string;
  /** Shell command line the terminal runs (ori and rpc type it into an interactive bash, prefixed by `exec`). */
  command: string;
  reading: boolean;
  tally: Tally;
}

export interface TerminalClient {
  readonly options: TerminalClientOptions;
  /** Output bytes received so far. */
  bytes(): number;
  /** performance.now() of the last output received (0: none yet). */
  lastOutputAt(): number;
  /** Ends the client on purpose (named and rpc: the session is deleted too). */
  stop(): Promise<void>;
}

/** The close code of a client the daemon dropped for making no progress (handlers/terminals/terminal-socket.ts). */
export const TOO_SLOW_CLOSE_CODE = 1013;

const wsBase = (baseUrl: string) => baseUrl.replace(/^http/, 'ws');

export async function openTerminalClient(options: TerminalClientOptions): Promise<TerminalClient> {
  const { baseUrl, token, transport, name, command, tally } = options;
  const auth = { authorization: `Bearer ${token}` };
  let bytes = 0;
  let lastOutputAt = 0;
  let stopping = false;
  const onOutput = (length: number) => {
    bytes += length;
    lastOutputAt = performance.now();
  };

  let ws: WebSocket;
  let rpc: WsRpc | undefined;
  if (transport === 'ori') {
    ws = await openWebSocket(`${wsBase(baseUrl)}/ws/terminal?token=${encodeURIComponent(token)}`);
    ws.send(JSON.stringify({ type: 'input', data: `exec ${command}\r` }));
    ws.on('message', (data, isBinary) => {
      if (isBinary) onOutput((data as Buffer).length);
    });
  } else if (transport === 'named') {
    const created = await fetch(`${baseUrl}/terminals`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name, command }),
    });
    if (created.status !== 201) throw new Error(`POST /terminals ${name}: ${created.status} ${await created.text()}`);
    ws = await openWebSocket(`${wsBase(baseUrl)}/terminals/${encodeURIComponent(name)}?token=${encodeURIComponent(token)}`);
    ws.on('message', (data, isBinary) => {
      if (isBinary) onOutput((data as Buffer).length);
    });
  } else {
    rpc = await WsRpc.connect(baseUrl, token);
    ws = rpc.ws;
    rpc.onEvent = (event) => {
      if (event.event === 'pty-output') onOutput(Number(event.payload.length) || 0);
    };
    await rpc.ok('pty_spawn', { sessionId: name, shell: '/bin/bash' });
    await rpc.ok('pty_write', { sessionId: name, data: `exec ${command}\r` });
  }

  // Before stop(), no close is expected (a reading client is never dropped; a paused one cannot see a close).
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  ws.on('error', () => {}); // the close follows
  void closed.then((code) => {
    if (!stopping) tally.error(`terminal ${transport} ${options.reading ? 'reader' : 'non-reader'} closed unexpectedly`, `${name}: close ${code}`);
  });
  if (!options.reading) ws.pause();

  return {
    options,
    bytes: () => bytes,
    lastOutputAt: () => lastOutputAt,
    async stop() {
      if (stopping) return;
      stopping = true;
      if (!options.reading) {
        ws.resume();
        // Whatever the daemon did while we were not reading is behind the buffered output: read up to it.
        const code = await Promise.race([closed, new Promise<undefined>((resolve) => setTimeout(resolve, 3000))]);
        if (code === TOO_SLOW_CLOSE_CODE && transport !== 'ori') tally.count('documented: non-reading client of a named session dropped (1013)');
        else if (code !== undefined) tally.error(`terminal ${transport} non-reader closed unexpectedly`, `${name}: close ${code}`);
      }
      await (rpc ? rpc.close() : closeOnPurpose(ws));
      if (transport !== 'ori') {
        try {
          const removed = await fetch(`${baseUrl}/terminals/${encodeURIComponent(name)}`, { method: 'DELETE', headers: auth });
          await removed.arrayBuffer();
          if (removed.status !== 200) tally.error('terminal delete failed', `${name}: DELETE ${removed.status}`);
        } catch (error) {
          tally.error('terminal delete failed', `${name}: ${(error as Error).message} (${String((error as Error).cause)})`);
        }
      }
    },
  };
}
