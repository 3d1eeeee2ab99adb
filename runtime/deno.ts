/**
 * The daemon on Deno (docs/runtimes.md#bun-and-deno): `deno run -A runtime/deno.ts [--cwd DIR] [--port N] …`, or with
 * the precise permissions that page lists. Deno reads the project's package.json and node_modules for the npm
 * imports. The app over the local disk (Deno offers `node:fs`), served by `Deno.serve`; flags, token, start-up lines
 * and shutdown are the Node CLI's (runtime/portable-daemon.ts).
 *
 * HTTP only: no upgrader is passed to the app, so WebSocket routes refuse (`/ws` 426, terminals 501), as on
 * Workers. Deno could upgrade (`Deno.upgradeWebSocket`), but what the sockets serve — terminals, commands, git,
 * agent chat — needs the Node adapters this entry does not wire.
 */
import { runPortableDaemon } from './portable-daemon.ts';

/** The part of Deno's global this entry uses (the project has no Deno types). */
declare const Deno: {
  serve(
    options: { hostname: string; port: number; onListen(addr: { hostname: string; port: number }): void },
    handler: (request: Request) => Promise<Response>,
  ): { readonly addr: { port: number }; shutdown(): Promise<void> };
};

await runPortableDaemon({ name: 'Deno', command: 'deno run -A runtime/deno.ts' }, async ({ hostname, port, fetch }) => {
  // onListen is given because Deno's default prints a "Listening on" line of its own; the CLI prints exactly one.
  const server = Deno.serve({ hostname, port, onListen: () => {} }, fetch);
  return { port: server.addr.port, stop: () => server.shutdown() };
});
