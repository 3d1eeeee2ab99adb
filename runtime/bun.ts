/**
 * The daemon on Bun (docs/runtimes.md#bun-and-deno): `bun runtime/bun.ts [--cwd DIR] [--port N] …`. The app over
 * the local disk (Bun offers `node:fs`), served by `Bun.serve`; flags, token, start-up lines and shutdown are the
 * Node CLI's (runtime/portable-daemon.ts).
 *
 * HTTP only: no upgrader is passed to the app, so WebSocket routes refuse (`/ws` 426, terminals 501), as on
 * Workers. Bun could upgrade (`server.upgrade` and a `websocket` handler), but what the sockets serve — terminals,
 * commands, git, agent chat — needs the Node adapters this entry does not wire.
 */
import { defaultLimits } from './context.ts';
import { runPortableDaemon } from './portable-daemon.ts';

/** The part of Bun's global this entry uses (the project has no @types/bun). */
declare const Bun: {
  serve(options: {
    hostname: string;
    port: number;
    /** Seconds a connection may sit idle before Bun closes it (default 10). */
    idleTimeout: number;
    /** Larger request bodies Bun refuses itself with a bare 413 (default 128 MiB). */
    maxRequestBodySize: number;
    fetch(request: Request): Promise<Response>;
  }): { readonly port: number; stop(closeActiveConnections?: boolean): Promise<void> };
};

/**
 * Past the change feed's keep-alive comment (15 s, `changesKeepAliveMs`): at Bun's default of 10 s an idle
 * `/workspace-files/changes` stream is cut.
 */
const IDLE_TIMEOUT_S = 60;

await runPortableDaemon({ name: 'Bun', command: 'bun runtime/bun.ts' }, async ({ hostname, port, fetch }) => {
  const server = Bun.serve({
    hostname,
    port,
    idleTimeout: IDLE_TIMEOUT_S,
    // The app bounds every body itself, in the route's dialect; the largest it takes is a streamed upload.
    maxRequestBodySize: defaultLimits.maxUploadBytes,
    fetch,
  });
  return { port: server.port, stop: () => server.stop(true) };
});
