/**
 * Child process: serves OUR daemon exactly as `workspace-api` does (runtime/node/server.ts → startNodeServer)
 * on 127.0.0.1 with a random port, and prints `{"port":N}` on stdout once listening and watching.
 * Config through the environment:
 *   BENCH_ROOT   workspace root          BENCH_TOKEN  auth token
 *   BENCH_MAX_SEARCH_ENTRIES  optional override of limits.maxSearchEntries ("Infinity" allowed)
 *   BENCH_LIMITS  optional JSON object of further limits (experiments: '{"terminalRingBytes":8388608}')
 *   BENCH_SEARCH  optional JSON of the search engine's Node options (runtime/node/search-adapters.ts), e.g.
 *                 '{"persist":true,"indexDir":"/tmp/x","eager":true}' or '{"noIndex":true}'
 *   BENCH_PANEL   `1`: serve the web panel, built before the port is printed (the panel's first-load figure)
 *   BENCH_READY_AT  `listening`: print the port as soon as the server listens, without waiting for the watcher
 *                 (the first-query-after-start figure: a client can call from that moment)
 */
import type { NodeSearchOptions } from '../../runtime/node/search-adapters.ts';
import { createNodePanelAssets } from '../../runtime/node/node-panel-assets.ts';
import { startNodeServer } from '../../runtime/node/server.ts';

const root = process.env.BENCH_ROOT;
const token = process.env.BENCH_TOKEN;
if (!root || !token) throw new Error('BENCH_ROOT and BENCH_TOKEN are required');
const maxEntries = process.env.BENCH_MAX_SEARCH_ENTRIES;
const limits = {
  ...(maxEntries ? { maxSearchEntries: Number(maxEntries) } : {}),
  ...(process.env.BENCH_LIMITS ? (JSON.parse(process.env.BENCH_LIMITS) as Record<string, number>) : {}),
};

const panel = process.env.BENCH_PANEL === '1' ? createNodePanelAssets() : undefined;
await panel?.warm();
const server = await startNodeServer({
  root,
  auth: { token },
  host: '127.0.0.1',
  port: 0,
  ...(panel ? { panel } : {}),
  ...(Object.keys(limits).length > 0 ? { limits } : {}),
  ...(process.env.BENCH_SEARCH ? { searchOptions: JSON.parse(process.env.BENCH_SEARCH) as NodeSearchOptions } : {}),
});
// The OS watcher crawls the root at start-up (seconds on the kernel tree): measure the steady state after it.
// A subscription's first frame, `ready`, waits for exactly that.
if (process.env.BENCH_READY_AT !== 'listening') {
  const watchReady = server.changes.subscribe();
  await watchReady.next();
  watchReady.close();
}
process.stdout.write(JSON.stringify({ port: server.port, via: 'startNodeServer' }) + '\n');

// Exit normally on SIGTERM so `node --cpu-prof` writes its profile (bench/profile.ts).
process.on('SIGTERM', () => {
  void server.close().finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
});
