/**
 * Child process: the daemon as `workspace-api` serves it (runtime/node/server.ts startNodeServer, the panel
 * included), on 127.0.0.1 with a free port, plus one thing the product does not have and must not: over the IPC
 * channel its parent opened, `{type: "heap"}` collects garbage twice and answers `process.memoryUsage()`. That
 * is how the malformed-request runs (./malformed-daemon-process.ts) read the daemon's heap after a forced
 * collection without a route for it. Started with `--expose-gc`, as `npm start` starts the daemon.
 *
 * Config through the environment: MALFORMED_ROOT, MALFORMED_TOKEN, MALFORMED_LIMITS (JSON of `limits`).
 */
import { createNodePanelAssets } from '../../../runtime/node/node-panel-assets.ts';
import { startNodeServer } from '../../../runtime/node/server.ts';

const root = process.env.MALFORMED_ROOT;
const token = process.env.MALFORMED_TOKEN;
if (!root || !token || !process.send) throw new Error('MALFORMED_ROOT, MALFORMED_TOKEN and an IPC channel are required');
const limits = JSON.parse(process.env.MALFORMED_LIMITS ?? '{}') as Record<string, number>;

const panel = createNodePanelAssets();
await panel.warm();
const server = await startNodeServer({ root, auth: { token }, host: '127.0.0.1', port: 0, panel, limits });
// Requests are answered from here on; the watcher's first crawl is awaited so memory is read in the steady state.
const ready = server.changes.subscribe();
await ready.next();
ready.close();

const gc = (globalThis as { gc?: () => void }).gc;
process.on('message', (message: { type?: string }) => {
  if (message?.type !== 'heap') return;
  // Twice: the first collection's finalizers can free what only a second one reclaims.
  gc?.();
  gc?.();
  process.send!({ type: 'heap', gcExposed: gc !== undefined, ...process.memoryUsage() });
});
process.on('SIGTERM', () => {
  void server.close().finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 3000).unref();
});
process.send({ type: 'ready', port: server.port });
