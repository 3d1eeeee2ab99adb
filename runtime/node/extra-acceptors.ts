import { spawn } from 'node:child_process';
import { Server as NetServer, type Socket } from 'node:net';
import type { Server } from 'node:http';

/**
 * More handles accepting on the daemon's one listening socket.
 *
 * libuv takes ONE connection per listening handle per event-loop turn (libuv/libuv#3696, in every Node since 20).
 * While the loop is idle that is instant; while it is saturated, a turn takes tens of milliseconds, so a burst of a
 * thousand connections (a gateway fanning users in, a load generator) waits in the kernel's queue for a minute and
 * its first requests time out although the daemon answers everything it has accepted in about a second. N handles
 * on the same socket take N per turn. Node 20 has no `reusePort` (and that would let any process of the same user
 * bind the port too) nor a way to dup() a descriptor, so a throwaway child does it: it is sent the raw listening
 * handle N−1 times and sends each straight back; each passage through the IPC channel (SCM_RIGHTS) is a new
 * descriptor of the same socket in this process. The child never listens (a raw handle is not a server) and exits
 * when the channel closes. Received descriptors are close-on-exec: terminals and commands never inherit the socket.
 *
 * Best effort, some 50 ms at start-up: if the child cannot start or answer (another runtime, a sandbox without
 * fork) the daemon accepts on its own handle alone, and says so once.
 */

/** The mirror: every handle it receives goes straight back, and its own copy is closed once sent. */
const MIRROR = "process.on('message', (m, h) => { if (h) process.send(m, h, { keepOpen: false }); });";
/**
 * A connection per handle per event-loop turn: 32 admit a thousand waiting connections in a second or two on a
 * saturated loop (npm run soak -- clients).
 */
export const DEFAULT_ACCEPTORS = 32;
/** Every handle is woken by every new connection (all but one find it taken): a few dozen is plenty. */
export const MAX_ACCEPTORS = 64;
/** The mirror answers in tens of milliseconds; past this it is not coming. */
const MIRROR_DEADLINE_MS = 5000;

export interface ExtraAcceptorOptions {
  /** Where a shortfall is said (once). */
  log?: (line: string) => void;
  /** The helper's command line (tests: one that fails); default this Node running MIRROR. */
  mirrorCommand?: readonly string[];
}

export interface ExtraAcceptors {
  /** Settles once every extra handle accepts or the attempt ended, and the helper has exited: the count that joined. */
  readonly ready: Promise<number>;
  /** Stops the mirror if it still runs and closes every extra handle's descriptor (the socket closes with the last). */
  close(): Promise<void>;
}

/**
 * Adds `count` handles to a listening node:http server; their connections are the server's own ('connection'
 * event: keep-alive, timeouts and closeAllConnections() see them like the rest) — except that the server's own
 * close() does not wait for them (./server.ts waits for every connection). `backlog` must be the server's: a
 * handle's listen() sets the shared socket's queue length.
 */
export function addExtraAcceptors(server: Server, count: number, backlog: number, options: ExtraAcceptorOptions = {}): ExtraAcceptors {
  const { log, mirrorCommand = [process.execPath, '-e', MIRROR] } = options;
  const extras: NetServer[] = [];
  const handle = (server as unknown as { _handle?: object | null })._handle;
  if (count <= 0 || handle == null) return { ready: Promise.resolve(0), close: async () => {} };

  // Node only: its own binary with nothing of ours (no loader flags, no environment, so no secret either).
  const mirror = spawn(mirrorCommand[0]!, mirrorCommand.slice(1), { stdio: ['ignore', 'ignore', 'ignore', 'ipc'], env: {} });
  const mirrorGone = new Promise<void>((resolve) => {
    mirror.once('exit', () => resolve());
    mirror.once('error', () => resolve());
  });
  let closed = false;
  const ready = new Promise<number>((resolve) => {
    let ended = false;
    const end = (problem?: string) => {
      if (ended) return;
      ended = true;
      clearTimeout(deadline);
      if (mirror.connected) mirror.disconnect();
      if (mirror.exitCode === null && mirror.signalCode === null) mirror.kill();
      if (problem !== undefined && !closed) log?.(`workspace-api: accepting on ${1 + extras.length} handle(s), not ${1 + count}: ${problem}`);
      void mirrorGone.then(() => resolve(extras.length));
    };
    const deadline = setTimeout(() => end(`no answer from the helper process within ${MIRROR_DEADLINE_MS / 1000} s`), MIRROR_DEADLINE_MS);
    // `on`, not `once`: a send on a channel that closed meanwhile emits an error per send.
    mirror.on('error', (error) => end(`the helper process failed (${error.message})`));
    mirror.once('exit', () => end(extras.length < count ? 'the helper process ended early' : undefined));
    mirror.on('message', (_message, copy) => {
      if (copy === undefined) return;
      if (closed) return (copy as unknown as { close(): void }).close(); // arrived after close(): not kept open
      const extra = new NetServer();
      extra.on('connection', (socket: Socket) => server.emit('connection', socket));
      extra.on('error', (error) => log?.(`workspace-api: an extra accepting handle failed: ${error.message}`));
      extra.listen(copy as never, backlog);
      extras.push(extra);
      if (extras.length === count) end();
    });
    mirror.once('spawn', () => {
      for (let i = 0; i < count; i++) mirror.send('handle', handle as never);
    });
  });

  return {
    ready,
    async close() {
      closed = true;
      mirror.kill();
      await mirrorGone;
      // Not awaited: net.Server's close callback waits for the connections it accepted, and those are the http
      // server's to end (after this, at shutdown). The descriptor itself is closed at once (uv_close).
      for (const extra of extras) extra.close();
    },
  };
}
