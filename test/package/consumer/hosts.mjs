// A stranger's server: workspace-api mounted under a base path in three hosts, as README's recipes show. Installed
// from the packed tarball with the registry's packages only (test/package/package.test.ts). Prints one JSON line
// with the hosts' URLs, serves until SIGTERM, then closes every workspace (terminals, watchers, workers).
import { createServer } from 'node:http';
import { createServerAdapter } from '@whatwg-node/server';
import { Hono } from 'hono';
import { Router } from 'itty-router';
import { createNodeWorkspaceApp } from 'workspace-api/node';

const [honoRoot, ittyRoot, nodeRoot, token] = process.argv.slice(2);

// Hono: the workspace's fetch behind a catch-all route under its base path.
const inHono = createNodeWorkspaceApp({ root: honoRoot, token, basePath: '/sandbox/hono' });
const hono = new Hono();
hono.get('/', (c) => c.text('the host app'));
hono.all('/sandbox/hono/*', (c) => inHono.fetch(c.req.raw));

// itty-router: the same, in its route table.
const inItty = createNodeWorkspaceApp({ root: ittyRoot, token, basePath: '/sandbox/itty' });
const itty = Router();
itty.get('/', () => new Response('the host app'));
itty.all('/sandbox/itty/*', (request) => inItty.fetch(request));
const ittyFetch = async (request) => (await itty.fetch(request)) ?? new Response('not found', { status: 404 });

// node:http with @whatwg-node/server, and WebSocket upgrades (/ws, terminals) on the same server.
const inNode = createNodeWorkspaceApp({ root: nodeRoot, token, basePath: '/sandbox/node' });
const nodeServer = createServer(createServerAdapter((request) => inNode.fetch(request)));
nodeServer.on('upgrade', inNode.handleUpgrade);

const servers = [createServer(createServerAdapter(hono.fetch)), createServer(createServerAdapter(ittyFetch)), nodeServer];
const urls = await Promise.all(
  servers.map((server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)))),
);
process.stdout.write(`${JSON.stringify({ hono: urls[0], itty: urls[1], node: urls[2] })}\n`);

process.once('SIGTERM', async () => {
  await Promise.all([inHono.close(), inItty.close(), inNode.close()]);
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  process.exit(0);
});
