import { DurableObjectFileSystem, type DurableObjectSqlStorage } from '../../adapters/fs/durable-object-file-system.ts';
import { WebZipAdapter } from '../../adapters/archive/web-zip-adapter.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { createWorkspaceApp, type WorkspaceApp } from '../app.ts';
import { jsonResponse } from '../errors/render.ts';
import { embeddedPanel } from '../panel/embedded-panel.ts';
import { panelAssetsFrom } from '../panel/panel-assets.ts';
import { durableObjectSearch } from '../search/durable-object-search.ts';
import { HibernatingSockets, type HibernatableWebSocket, type HibernationState } from './hibernating-sockets.ts';
import { allowedOriginsOf, maxFileBytesOf, workspaceAuth, type WorkerEnv } from './worker-env.ts';
import { workspaceTarget } from './workspace-id.ts';

/** Where the workspace's files live inside the object's storage (paths in answers read `/workspace/…`). */
const WORKSPACE_ROOT = '/workspace';

const WELCOME_README = `# Welcome to workspace-api on Cloudflare Workers

This workspace lives in a Durable Object of its own: its files are kept in the object's SQLite storage, the same
workspace for every request that names it — and they survive restarts and deployments.

- Terminals, commands and git need a real machine: those routes answer 501 here. Run the Node daemon for them.
- Every API call needs a token, sent as \`Authorization: Bearer <token>\`: the deployment's \`WORKSPACE_TOKEN\`,
  or this workspace's own token where the deployment hands them out.

Try \`GET api/files\`, \`GET api/file?path=README.md\` and \`PUT api/file?path=notes/hello.md\` under this workspace's URL.
`;

/**
 * One workspace (docs/architecture.md#cloudflare-workers): a Durable Object that mounts the same `createWorkspaceApp`
 * every runtime does, under the base path `/w/<id>`, over DurableObjectFileSystem on its own SQLite storage. The
 * platform places it, keeps one instance per id and runs its requests one at a time per storage call, so every
 * request that names the id sees the same files. A new workspace starts with a welcome README. WebSocket routes
 * (`/ws`: files, search, zips) use the hibernation API (./hibernating-sockets.ts): an idle connection costs nothing.
 */
export class WorkspaceObject {
  readonly #storage: DurableObjectSqlStorage;
  readonly #env: WorkerEnv;
  readonly #sockets: HibernatingSockets;
  #mounted: Promise<WorkspaceApp> | undefined;

  constructor(ctx: { storage: DurableObjectSqlStorage } & HibernationState, env: WorkerEnv) {
    this.#storage = ctx.storage;
    this.#env = env;
    this.#sockets = new HibernatingSockets(ctx);
  }

  async fetch(request: Request): Promise<Response> {
    const app = await this.#appFor(request.url);
    if (app === undefined) return jsonResponse({ error: 'not found' }, 404);
    if (request.headers.get('upgrade')?.toLowerCase() === 'websocket') return this.#sockets.upgrade(request, app.fetch);
    return app.fetch(request);
  }

  /** The hibernation API's handlers: a message (perhaps to a woken instance), a close, a failure. */
  async webSocketMessage(socket: HibernatableWebSocket, message: string | ArrayBuffer): Promise<void> {
    await this.#sockets.message(socket, message, async (url) => {
      const app = await this.#appFor(url);
      if (app === undefined) throw new Error(`a socket of this object names no workspace: ${url}`);
      return app.fetch;
    });
  }

  webSocketClose(socket: HibernatableWebSocket, code: number, reason: string): void {
    this.#sockets.closed(socket, code, reason);
  }

  webSocketError(socket: HibernatableWebSocket): void {
    this.#sockets.closed(socket, 1011, 'the connection failed');
  }

  /** The workspace app, mounted on the first request: the object is named by its id, so every URL carries the same one. */
  async #appFor(url: string): Promise<WorkspaceApp | undefined> {
    const target = workspaceTarget(new URL(url).pathname);
    if (target.kind !== 'workspace') return undefined;
    this.#mounted ??= this.#mount(target.id, target.basePath).catch((error: unknown) => {
      this.#mounted = undefined; // try again with the next request
      throw error;
    });
    return this.#mounted;
  }

  async #mount(id: string, basePath: string): Promise<WorkspaceApp> {
    const fs = new DurableObjectFileSystem(this.#storage);
    if (!(await exists(fs, WORKSPACE_ROOT))) {
      await fs.mkdir(WORKSPACE_ROOT, { recursive: true });
      await fs.write(`${WORKSPACE_ROOT}/README.md`, WELCOME_README);
    }
    return createWorkspaceApp({
      fs,
      root: WORKSPACE_ROOT,
      basePath,
      auth: await workspaceAuth(this.#env, id),
      allowedOrigins: allowedOriginsOf(this.#env),
      // Uploads stop at the edge's file cap; a file the protocol reads whole, and what a zip may unpack to, within it too.
      limits: {
        maxUploadBytes: maxFileBytesOf(this.#env),
        rpcMaxFileBytes: Math.min(maxFileBytesOf(this.#env), 48 * 1024 * 1024),
        zipMaxBytes: maxFileBytesOf(this.#env),
      },
      // The protocol's extract_zip, parsed and inflated with Web APIs only (adapters/archive/web-zip-adapter.ts).
      zip: new WebZipAdapter(),
      // One engine for the object's life, its index and per-file facts kept in the object's SQLite.
      search: durableObjectSearch(this.#storage),
      webSockets: true, // ./hibernating-sockets.ts
      // The panel built into this bundle by runtime/worker-build.ts or the package build (none when run from source).
      ...(embeddedPanel ? { panel: panelAssetsFrom(embeddedPanel) } : {}),
    });
  }
}

async function exists(fs: FileSystem, path: string): Promise<boolean> {
  try {
    await fs.lstat(path);
    return true;
  } catch (error) {
    if (isFsError(error, 'not-found')) return false;
    throw error;
  }
}
