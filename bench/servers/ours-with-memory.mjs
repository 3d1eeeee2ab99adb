/**
 * Child process for the long hardening runs (bench/hardening/): OUR daemon as the package ships it — the compiled
 * `dist/build` on plain `node`, what `npx workspace-api` and `npm start` run — through startNodeServer on 127.0.0.1
 * with a random port, `{"port":N}` on stdout once listening and watching. Plain JavaScript on purpose: run through
 * tsx, the daemon would carry tsx's esbuild service as a child process, and a soak counting the daemon's
 * descendants would count the loader's helper. lib/daemon.ts builds the package first when a source is newer.
 *
 * An IPC channel answers `{"type":"memory"}` with `process.memoryUsage()` — after a full collection when it says
 * `"gc":true`, after the most thorough one with `"gc":"thorough"` (the daemon runs with --expose-gc, as `npm start`
 * does), so a soak compares live heaps, not how much garbage happened to wait. The V8 heap cannot be read from
 * /proc, and a product route for it would be a new surface for every user: the reading stays bench-only, over IPC.
 * Config through the environment:
 *   BENCH_ROOT    workspace root          BENCH_TOKEN  auth token
 *   BENCH_LIMITS  optional JSON object of limits (e.g. '{"maxTerminals":256}', as the CLI's --max-terminals)
 *   BENCH_ACCEPTORS  optional handles accepting connections (startNodeServer's `acceptors`, as the CLI's --acceptors)
 *   BENCH_HEARTBEAT_MS  optional WebSocket ping period (startNodeServer's `heartbeatMs`; default 30 s)
 */
import { startNodeServer } from '../../dist/build/runtime/node/server.js';

const root = process.env.BENCH_ROOT;
const token = process.env.BENCH_TOKEN;
if (!root || !token) throw new Error('BENCH_ROOT and BENCH_TOKEN are required');
if (!process.send) throw new Error('start this server with an IPC channel (stdio "ipc")');
const limits = process.env.BENCH_LIMITS ? JSON.parse(process.env.BENCH_LIMITS) : undefined;
const acceptors = process.env.BENCH_ACCEPTORS ? Number(process.env.BENCH_ACCEPTORS) : undefined;
const heartbeatMs = process.env.BENCH_HEARTBEAT_MS ? Number(process.env.BENCH_HEARTBEAT_MS) : undefined;

const server = await startNodeServer({
  root,
  auth: { token },
  host: '127.0.0.1',
  port: 0,
  ...(limits ? { limits } : {}),
  ...(heartbeatMs ? { heartbeatMs } : {}),
  ...(acceptors ? { acceptors } : {}),
});
// As ours.ts: the figures describe the steady state after the OS watcher's start-up crawl.
const watchReady = server.changes.subscribe();
await watchReady.next();
watchReady.close();

// Answers lib/daemon.ts's MemoryRequest with a MemoryReply.
process.on('message', (message) => {
  if (message?.type !== 'memory') return;
  // "thorough": the most thorough collection V8 has (what it does before giving up on memory): besides the garbage
  // it gives back the pages it pools for reuse, so RSS read after it is memory still held, not memory parked. It
  // is several collections in a row and gives back what a busy daemon takes again at once: for a daemon at rest (the
  // soak); under load (the thousand clients) a plain full collection.
  if (message.gc === 'thorough') globalThis.gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  else if (message.gc) globalThis.gc?.();
  process.send({ type: 'memory', id: message.id ?? 0, usage: process.memoryUsage() });
});
// The parent going away must not leave a daemon (and its terminals) behind.
process.on('disconnect', () => shutdown());

let closing = false;
function shutdown() {
  if (closing) return;
  closing = true;
  void server.close().finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 5000).unref();
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);

process.stdout.write(JSON.stringify({ port: server.port, via: 'startNodeServer (dist/build)' }) + '\n');
