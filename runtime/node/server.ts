import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ChangeFeed } from '../../core/changes/change-feed.ts';
import type { TerminalManager } from '../../core/terminals/terminal-manager.ts';
import type { SearchEngine } from '../../core/search/search-engine.ts';
import type { PanelAssets } from '../panel/panel-assets.ts';
import { NodeFileSystem } from '../../adapters/fs/node-file-system.ts';
import type { SweepResult } from '../../adapters/fs/leftover-sweep.ts';
import { agentsFolder } from '../../core/agents/agent-copies.ts';
import { setResponseImplementation, type ResponseConstructor } from '../http/response.ts';
import { answerNodeRefusals } from './node-refusals.ts';
import { addExtraAcceptors, DEFAULT_ACCEPTORS, MAX_ACCEPTORS } from './extra-acceptors.ts';
import { idleCollector } from './idle-collector.ts';
import { NodeResponse } from './node-response.ts';
import { formatHost } from './node-websockets.ts';
import { createNodeWorkspaceApp, type NodeWorkspaceAppOptions } from './node-workspace-app.ts';
import { badRequestTarget, refuseRequest } from './request-target.ts';

export { formatHost } from './node-websockets.ts';

export interface NodeServerOptions extends Omit<NodeWorkspaceAppOptions, 'boundHost' | 'panel'> {
  /** Interface to bind (default 127.0.0.1). */
  host?: string;
  /** Port to bind (default 8787; 0 picks a free one). */
  port?: number;
  /** The web panel's files (the CLI's: runtime/node/node-panel-assets.ts); absent → no panel at `/`. */
  panel?: PanelAssets;
  /**
   * Sweep the root for temp files and staging folders killed writers left, once listening (default true, when
   * storage is the local disk): docs/architecture.md#atomic-and-serialised-writes.
   */
  sweepLeftovers?: boolean;
  /**
   * Handles accepting connections on the listening socket (default 32, as the CLI's `--acceptors`). Each takes one
   * connection per event-loop turn: more keep a busy daemon admitting a burst quickly (./extra-acceptors.ts).
   */
  acceptors?: number;
}

export interface NodeServer {
  /** `http://HOST:PORT` with the port actually bound. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** The token requests must carry (given or generated); undefined when auth is disabled. */
  readonly token: string | undefined;
  /** The workspace's change feed (API writes and the OS watcher), for consumers in the same process. */
  readonly changes: ChangeFeed;
  /** The terminal sessions, for code in the same process (core/terminals). */
  readonly terminals: TerminalManager | undefined;
  /** The search engine (core/search), for code in the same process and benchmarks. */
  readonly search: SearchEngine;
  /** The start-up sweep of killed writers' leftovers: settles when it has ended; undefined when none runs. */
  readonly leftoverSweep: Promise<SweepResult | undefined>;
  /** Handles accepting connections: `acceptors`, or fewer when the extra ones could not be made (logged). */
  readonly acceptors: number;
  /** Closes WebSockets (1001), kills every terminal, stops listening and ends open connections. */
  close(): Promise<void>;
}

/** How long in-flight requests get before they are cut at shutdown. */
const SHUTDOWN_GRACE_MS = 1000;
/** Quiet time after a request before the daemon collects its garbage once (./idle-collector.ts). */
const IDLE_COLLECT_AFTER_MS = 15_000;

/**
 * The daemon: the Node workspace app (./node-workspace-app.ts) on its own node:http server, WebSocket upgrades on
 * the same port. Binds, says nothing (the CLI prints), and closes everything it started.
 */
export async function startNodeServer(options: NodeServerOptions): Promise<NodeServer> {
  const { host = '127.0.0.1', port = 8787, panel, sweepLeftovers = true, acceptors = DEFAULT_ACCEPTORS, ...appOptions } = options;
  if (!Number.isInteger(acceptors) || acceptors < 1 || acceptors > MAX_ACCEPTORS) {
    throw new RangeError(`acceptors: must be a whole number from 1 to ${MAX_ACCEPTORS}, not ${acceptors}`);
  }
  const app = createNodeWorkspaceApp({ ...appOptions, panel: panel ?? false, boundHost: host });
  const idle = idleCollector(IDLE_COLLECT_AFTER_MS);
  // requireHostHeader off: ./request-target.ts refuses a missing Host itself, in JSON like every refusal.
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    const refusal = badRequestTarget(req, `${formatHost(host)}:${boundPort}`);
    if (refusal !== undefined) return refuseRequest(res, refusal);
    idle.touch();
    app.handleRequest(req, res);
  });
  let closing: Promise<void> | undefined;
  server.on('upgrade', app.handleUpgrade);
  answerNodeRefusals(server, appOptions.basePath);
  const connections = openConnections(server);

  useNodeResponse(); // runtime/http/response.ts and ./node-response.ts say why
  try {
    await listen(server, port, host);
  } catch (error) {
    idle.stop();
    await app.close(); // the watcher, if it started, must not outlive a server that never listened
    releaseNodeResponse();
    throw error;
  }
  const boundPort = (server.address() as AddressInfo).port;
  const extraAcceptors = addExtraAcceptors(server, acceptors - 1, LISTEN_BACKLOG, { log: appOptions.searchOptions?.log });
  const extraHandles = await extraAcceptors.ready; // ~50 ms; after it no helper process is left
  const onDisk = appOptions.fs === undefined || appOptions.fs instanceof NodeFileSystem;
  // Writes to agents' copies land in their folder: swept too when it is outside the root (`--agents-dir`).
  const sweptFolders = [appOptions.root, agentsFolder(appOptions.root, appOptions.agentsDir)];
  const leftoverSweep = sweepLeftovers && onDisk ? startLeftoverSweep(sweptFolders, appOptions.searchOptions?.log) : Promise.resolve(undefined);

  async function shutdown(): Promise<void> {
    idle.stop();
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    await extraAcceptors.close(); // the socket stays open while any handle on it does
    server.closeIdleConnections();
    await app.close();
    const cutOff = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    // Both: the server's own close waits only for the connections its own handle accepted, not the extra ones'.
    await Promise.all([stopped, connections.ended()]);
    clearTimeout(cutOff);
    releaseNodeResponse();
  }

  return {
    url: `http://${formatHost(host)}:${boundPort}`,
    host,
    port: boundPort,
    token: app.token,
    changes: app.changes,
    terminals: app.terminals,
    search: app.search,
    leftoverSweep,
    acceptors: 1 + extraHandles,
    close: () => (closing ??= shutdown()),
  };
}

/**
 * Every connection the server serves, whichever handle accepted it, until it closes: shutdown waits for them all
 * (a keep-alive or streaming connection left open would go on reaching the closed app).
 */
function openConnections(server: Server): { ended(): Promise<void> } {
  const open = new Set<Socket>();
  let allEnded: (() => void) | undefined;
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      if (open.size === 0) allEnded?.();
    });
  });
  return {
    ended: () => (open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (allEnded = resolve))),
  };
}

/**
 * The Node Response is the process's while a Node server runs, and the one before it comes back when the last
 * closes: an app in the same process afterwards (a test file after another, a host that stopped the daemon) builds
 * the Responses it built before.
 */
let runningServers = 0;
let responseBefore: ResponseConstructor | undefined;

function useNodeResponse(): void {
  if (runningServers++ === 0) responseBefore = setResponseImplementation(NodeResponse);
}

function releaseNodeResponse(): void {
  if (--runningServers === 0 && responseBefore !== undefined) setResponseImplementation(responseBefore);
}

/**
 * Runs the sweep once the server listens, so the first requests never wait for a walk of the whole tree: it reads
 * folders a few at a time beside them. One line on the daemon's log when done (the log is the CLI's stderr).
 */
async function startLeftoverSweep(folders: readonly string[], log: ((line: string) => void) | undefined): Promise<SweepResult | undefined> {
  const { sweepLeftovers } = await import('../../adapters/fs/leftover-sweep.ts');
  try {
    const result = await sweepLeftovers(folders);
    const kept = result.kept.length > 0 ? `, kept ${result.kept.length} that may still be written` : '';
    const cut = result.truncated ? ', stopped at its entry cap' : '';
    log?.(`workspace-api: swept ${result.removed.length} leftovers (${result.entries} entries in ${(result.durationMs / 1000).toFixed(1)} s${kept}${cut})`);
    return result;
  } catch (error) {
    log?.(`workspace-api: the leftover sweep failed: ${(error as Error).message}`);
    return undefined;
  }
}

/**
 * Connections the kernel may hold for us before we accept them. Node's default, 511, overflows when a gateway opens
 * a thousand connections at once: the rest are dropped and retried after a second or more, so every client waits
 * on one slow accept queue. The kernel caps this at net.core.somaxconn (4096 on current Linux).
 */
const LISTEN_BACKLOG = 4096;

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
