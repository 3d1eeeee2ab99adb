import type { IncomingMessage, ServerResponse } from 'node:http';
import { realpathSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createServerAdapter } from '@whatwg-node/server';
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { NodeFileSystem } from '../../adapters/fs/node-file-system.ts';
import { GitWorktreeAdapter } from '../../adapters/git/git-worktree-adapter.ts';
import { createGitProcess } from '../../adapters/git/git-process.ts';
import { YauzlZipAdapter } from '../../adapters/archive/yauzl-zip-adapter.ts';
import { NodeProcessAdapter } from '../../adapters/process/node-process-adapter.ts';
import { NodeChatHost } from '../../adapters/process/node-chat-host.ts';
import { NodeCommandLookup } from '../../adapters/process/node-command-lookup.ts';
import { NodeJobHost } from '../../adapters/process/node-job-host.ts';
import { NodePtyAdapter } from '../../adapters/pty/node-pty-adapter.ts';
import { ParcelWatcherAdapter } from '../../adapters/watcher/parcel-watcher-adapter.ts';
import { createWorkspaceApp, type WorkspaceApp, type WorkspaceAppOptions } from '../app.ts';
import { generateToken, type AuthConfig } from '../auth.ts';
import { jsonResponse } from '../errors/render.ts';
import { INTERNAL_ERROR_TEXT, logUnexpectedError, requestLabel } from '../errors/unexpected-error.ts';
import { isAllowedHost } from '../hosts.ts';
import type { PanelAssets } from '../panel/panel-assets.ts';
import { createNodePanelAssets } from './node-panel-assets.ts';
import { createNodeWebSockets } from './node-websockets.ts';
import { nodeSearchAdapters, type NodeSearchOptions } from './search-adapters.ts';
import { nodeRequestListener } from './send-file-body.ts';

/** How long closing WebSockets get before they are cut at shutdown. */
const SHUTDOWN_GRACE_MS = 1000;

export interface NodeWorkspaceAppOptions extends Omit<WorkspaceAppOptions, 'fs' | 'auth' | 'pty' | 'processes' | 'zip' | 'worktrees' | 'panel'> {
  /** The workspace folder (absolute). */
  root: string;
  /** The API token. Without `token` or `auth` one is generated: read it from the app's `token`. */
  token?: string;
  /** `{ disabled: true }` runs the API open (behind a gateway that authenticates); overrides `token`. */
  auth?: AuthConfig;
  /** Storage (default: the local disk). */
  fs?: FileSystem;
  /**
   * Watch the root for changes made outside the API (default true). The watcher is `watcher` if given, else
   * @parcel/watcher when storage is the local disk.
   */
  watch?: boolean;
  /** The search engine's Node parts (./search-adapters.ts); `search` overrides any of them. */
  searchOptions?: NodeSearchOptions;
  /** The web panel at the app's `/` (default true: the package's prebuilt one); false: none; or your own assets. */
  panel?: boolean | PanelAssets;
  /** WebSocket ping period in ms (default 30 s); a peer silent for two periods is dropped. */
  heartbeatMs?: number;
  /**
   * The host name the app is served on, for an open app (`auth: { disabled: true }`): requests must address it or a
   * loopback name, the DNS-rebinding defence (runtime/hosts.ts). The daemon's server passes its bind address.
   */
  boundHost?: string;
}

/** A workspace app with every Node power wired, plus what a node:http server needs to serve it. */
export interface NodeWorkspaceApp extends WorkspaceApp {
  /** The token requests must carry (given or generated); undefined when auth is disabled. */
  readonly token: string | undefined;
  /** The app as a node:http request listener (file bodies go straight from the file where the daemon's server installs its Response: ./server.ts). */
  handleRequest(req: IncomingMessage, res: ServerResponse): void;
  /** A node:http 'upgrade' listener: WebSocket routes (`/ws`, terminals) through the app. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes WebSockets (1001), kills terminals, commands and jobs, stops the watcher and the search workers. */
  close(): Promise<void>;
}

/**
 * `createWorkspaceApp` with the Node adapters a daemon has (docs/architecture.md#mounting-in-another-fetch-server):
 * the local disk, a real pty, processes, zip, git and agent worktrees, agent CLIs, jobs, the OS watcher, the search
 * engine's worker threads and the panel. The daemon's own server (./server.ts) is built on it; a host mounts its
 * `fetch` (and, on node:http, `handleUpgrade`) under a `basePath`.
 */
export function createNodeWorkspaceApp(options: NodeWorkspaceAppOptions): NodeWorkspaceApp {
  const { fs = new NodeFileSystem(), watch = true, searchOptions, panel = true, heartbeatMs, boundHost, token, auth: givenAuth, ...rest } = options;
  const auth: AuthConfig = givenAuth ?? { token: token ?? generateToken() };
  // What reads files or starts processes by path itself (search workers, git, terminals, commands) is kept inside
  // the root as the FileSystem is (FileSystem.confine; docs/architecture.md#confinement).
  const within = rest.unrestricted ? {} : { within: realPathOr(options.root) };
  const ptys = new NodePtyAdapter(within);
  const processes = new NodeProcessAdapter(within);
  const watcher = watch ? (rest.watcher ?? (fs instanceof NodeFileSystem ? new ParcelWatcherAdapter() : undefined)) : undefined;
  const nodeSearch = fs instanceof NodeFileSystem ? nodeSearchAdapters(options.root, { ...within, ...searchOptions }) : undefined;
  const panelAssets = panel === true ? createNodePanelAssets() : panel === false ? undefined : panel;
  const workspace = createWorkspaceApp({
    ...rest,
    auth,
    // The Node parts first; what the caller gives (`search: { … }`) on top.
    ...(nodeSearch === undefined && rest.search === undefined ? {} : { search: { ...nodeSearch?.adapters, ...rest.search } }),
    ...(rest.healthFigures === undefined && nodeSearch !== undefined ? { healthFigures: nodeSearch.healthFigures } : {}),
    ...(rest.healthStore === undefined && nodeSearch?.healthStore !== undefined ? { healthStore: nodeSearch.healthStore } : {}),
    ...(panelAssets === undefined ? {} : { panel: panelAssets }),
    fs,
    webSockets: true, // handleUpgrade below
    pty: ptys,
    processes,
    zip: new YauzlZipAdapter(),
    chatHost: rest.chatHost ?? new NodeChatHost(), // agent CLIs for the protocol's chat (core/chat)
    commands: rest.commands ?? new NodeCommandLookup(),
    // The ceiling above the workspace is decided on the root's real path (a missing root fails elsewhere). A
    // caller's runner (tests with a fixed identity and clock) replaces it.
    git: rest.git ?? createGitProcess({ root: realPathOr(options.root), ...within }),
    // The templates shipped in the package (docs/intentic-projects.md#templates): the default source of GET /workspace/templates.
    templatesDir: rest.templatesDir ?? fileURLToPath(new URL('../../templates', import.meta.url)),
    worktrees: fs instanceof NodeFileSystem ? new GitWorktreeAdapter() : undefined, // git acts on the disk only
    watcher,
    jobHost: rest.jobHost ?? new NodeJobHost(), // installs, dev servers, test runs (core/jobs)
  });
  // Without a token, the Host check is what keeps a DNS-rebinding page out (runtime/hosts.ts).
  const checkHost = 'disabled' in auth && boundHost !== undefined;
  const fetch: WorkspaceApp['fetch'] = (request, env) =>
    checkHost && !isAllowedHost(request, boundHost) ? Promise.resolve(jsonResponse({ error: 'host not allowed' }, 403)) : workspace.fetch(request, env);
  // Only the Request goes to the app: @whatwg-node passes its own server context as the second argument.
  const handleRequest = nodeRequestListener(
    createServerAdapter(async (request: Request) => {
      try {
        return await fetch(request);
      } catch (error) {
        // The app answers its own failures; this is the last line, so @whatwg-node's handler (a 500 with the stack
        // as its body) never answers a client.
        logUnexpectedError(requestLabel(request), error);
        return jsonResponse({ error: INTERNAL_ERROR_TEXT }, 500);
      }
    }),
  );
  const webSockets = createNodeWebSockets({ fetch, serveOrdinary: handleRequest, ...(heartbeatMs === undefined ? {} : { heartbeatMs }) });
  let closing: Promise<void> | undefined;

  async function close(): Promise<void> {
    const socketsClosed = webSockets.close(SHUTDOWN_GRACE_MS); // 1001 to every client now, cut after the grace
    await workspace.jobs?.close(); // dev servers' whole trees, before the terminals' sessions are hung up
    await Promise.all([ptys.killAll(), processes.killAll(), socketsClosed, workspace.close()]);
    await nodeSearch?.close(); // after the engine: no scan is left to run on the workers
  }

  return {
    token: 'token' in auth ? auth.token : undefined,
    changes: workspace.changes,
    terminals: workspace.terminals,
    search: workspace.search,
    get jobs() {
      return workspace.jobs;
    },
    fetch,
    handleRequest: (req, res) => void handleRequest(req, res),
    handleUpgrade: webSockets.handleUpgrade,
    close: () => (closing ??= close()),
  };
}

function realPathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
