/**
 * A Worker for ../durable-object-search.test.ts: Durable Objects with SQLite storage, each holding a workspace
 * served by two `createWorkspaceApp`s over the same storage — `/edge/…` with durableObjectSearch (one engine per
 * object, its index in the object's SQLite) and `/scan/…` with the per-request scan (`perRequest: true`), the
 * reference its answers must equal. Each app's FileSystem counts the file reads it makes; `/edge/ws` and `/scan/ws`
 * upgrade to the `/ws` protocol.
 *
 * `/o/<object>/…` names the object. Inside one:
 * - `POST /seed?files=N` writes N generated files (./generated-workspace.ts) in this one request, and `POST /seed-files`
 *   the files of a JSON body `{ path: base64 }`, straight to the storage before any app is mounted: files already
 *   there when an object starts, which no change feed saw being written;
 * - `GET /stats` the reads counted since `POST /stats/reset`, the database's size and the bytes of each search table;
 * - `POST /checks/index-store`, `POST /checks/facts-store` run ./store-checks.ts.
 */
import { DurableObjectFileSystem, type DurableObjectSqlStorage } from '../../../../adapters/fs/durable-object-file-system.ts';
import type { FileSystem } from '../../../../adapters/fs/file-system.ts';
import type { RequestEnv } from '../../../../runtime/app/app-options.ts';
import { createWorkspaceApp, type WorkspaceApp } from '../../../../runtime/app.ts';
import { durableObjectSearch } from '../../../../runtime/search/durable-object-search.ts';
import type { ServerSocket, SocketOpenHandler, Upgrader } from '../../../../runtime/websocket.ts';
import { generatedFile, ROOT, TOKEN } from './generated-workspace.ts';
import { factsStoreChecks, indexStoreChecks } from './store-checks.ts';

interface Counter {
  reads: number;
}

/** `fs` with its file reads (read, readWithStat, readStream) counted. */
function counted(fs: FileSystem, counter: Counter): FileSystem {
  const reads = new Set<PropertyKey>(['read', 'readWithStat', 'readStream']);
  return new Proxy(fs, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      if (!reads.has(key)) return value.bind(target);
      return (...args: unknown[]) => {
        counter.reads++;
        return (value as (...args: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

interface Storage extends DurableObjectSqlStorage {
  sql: DurableObjectSqlStorage['sql'] & { databaseSize?: number };
}

interface WorkerdSocket {
  accept(): void;
  send(data: string | Uint8Array): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'message', listener: (event: { data: string | ArrayBuffer }) => void): void;
  addEventListener(type: 'close', listener: (event: { code: number; reason: string }) => void): void;
}
declare const WebSocketPair: new () => { 0: WorkerdSocket; 1: WorkerdSocket };

/** A plain (not hibernating) upgrade: the app decides through its fetch with an upgrader, as runtime/websocket.ts says. */
async function upgraded(request: Request, app: WorkspaceApp): Promise<Response> {
  let onOpen: SocketOpenHandler | undefined;
  const upgrade: Upgrader = (open) => {
    onOpen = open;
    return new Response(null, { status: 200 });
  };
  const answer = await app.fetch(request, { upgrade } satisfies RequestEnv);
  if (onOpen === undefined || answer.status !== 200) return answer;
  const pair = new WebSocketPair();
  const [client, server] = [pair[0], pair[1]];
  server.accept();
  const onMessages: ((data: string | Uint8Array, isBinary: boolean) => void)[] = [];
  const onCloses: ((code: number, reason: string) => void)[] = [];
  server.addEventListener('message', ({ data }) => {
    for (const listener of onMessages) listener(typeof data === 'string' ? data : new Uint8Array(data), typeof data !== 'string');
  });
  server.addEventListener('close', ({ code, reason }) => {
    for (const listener of onCloses) listener(code, reason);
  });
  const socket: ServerSocket = {
    send: (data) => server.send(data),
    bufferedAmount: 0,
    onDrain() {},
    close: (code, reason) => server.close(code, reason),
    onMessage: (listener) => void onMessages.push(listener),
    onClose: (listener) => void onCloses.push(listener),
  };
  onOpen(socket);
  return new Response(null, { status: 101, webSocket: client } as ResponseInit);
}

export class SearchObject {
  readonly #storage: Storage;
  readonly #counters = { edge: { reads: 0 }, scan: { reads: 0 } };
  #edge: WorkspaceApp | undefined;
  #scan: WorkspaceApp | undefined;

  constructor(ctx: { storage: Storage }) {
    this.#storage = ctx.storage;
  }

  async fetch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    const app = path.startsWith('/edge/') ? this.#edgeApp() : path.startsWith('/scan/') ? this.#scanApp() : undefined;
    if (app !== undefined) {
      return request.headers.get('upgrade')?.toLowerCase() === 'websocket' ? upgraded(request, app) : app.fetch(request);
    }
    switch (path) {
      case '/seed':
        return Response.json(await this.#seed(Number(new URL(request.url).searchParams.get('files'))));
      case '/seed-files':
        return Response.json(await this.#seedFiles((await request.json()) as Record<string, string>));
      case '/stats':
        return Response.json(this.#stats());
      case '/stats/reset':
        this.#counters.edge.reads = 0;
        this.#counters.scan.reads = 0;
        return Response.json({ ok: true });
      case '/checks/index-store':
        return Response.json(await indexStoreChecks(this.#storage));
      case '/checks/facts-store':
        return Response.json(await factsStoreChecks(this.#storage));
    }
    return Response.json({ error: 'not found' }, { status: 404 });
  }

  async #seed(files: number): Promise<{ files: number; ms: number }> {
    const started = Date.now();
    await this.#write(Array.from({ length: files }, (_, i) => generatedFile(i)));
    return { files, ms: Date.now() - started };
  }

  async #seedFiles(files: Record<string, string>): Promise<{ files: number }> {
    const bytes = (base64: string) => Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
    await this.#write(Object.entries(files).map(([path, base64]) => ({ path, text: bytes(base64) })));
    return { files: Object.keys(files).length };
  }

  async #write(files: readonly { path: string; text: string | Uint8Array }[]): Promise<void> {
    if (this.#edge || this.#scan) throw new Error('seed before any app is mounted');
    const fs = new DurableObjectFileSystem(this.#storage);
    const folders = new Set<string>();
    for (const { path, text } of files) {
      const folder = `${ROOT}/${path}`.slice(0, `${ROOT}/${path}`.lastIndexOf('/'));
      if (!folders.has(folder)) {
        folders.add(folder);
        await fs.mkdir(folder, { recursive: true });
      }
      await fs.write(`${ROOT}/${path}`, text);
    }
  }

  #stats() {
    const sql = this.#storage.sql;
    const bytesOf = (table: string) => {
      const columns = sql.exec(`SELECT name FROM pragma_table_info('${table}')`).toArray().map((row) => String(row.name));
      const sum = columns.map((column) => `coalesce(sum(length(${column})), 0)`).join(' + ');
      return Number(sql.exec(`SELECT ${sum} AS n FROM ${table}`).one().n);
    };
    const searchTables: Record<string, number> = {};
    for (const { name } of sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'search_%'")) {
      searchTables[String(name)] = bytesOf(String(name));
    }
    return {
      reads: { edge: this.#counters.edge.reads, scan: this.#counters.scan.reads },
      databaseSize: sql.databaseSize,
      contentBytes: Number(sql.exec('SELECT coalesce(sum(length(data)), 0) AS n FROM fs_chunks').one().n),
      searchTables,
    };
  }

  #edgeApp(): WorkspaceApp {
    this.#edge ??= createWorkspaceApp({
      fs: counted(new DurableObjectFileSystem(this.#storage), this.#counters.edge),
      root: ROOT,
      basePath: '/edge',
      auth: { token: TOKEN },
      webSockets: true,
      search: durableObjectSearch(this.#storage),
    });
    return this.#edge;
  }

  #scanApp(): WorkspaceApp {
    this.#scan ??= createWorkspaceApp({
      fs: counted(new DurableObjectFileSystem(this.#storage), this.#counters.scan),
      root: ROOT,
      basePath: '/scan',
      auth: { token: TOKEN },
      webSockets: true,
      search: { perRequest: true },
    });
    return this.#scan;
  }
}

interface Namespace {
  idFromName(name: string): unknown;
  get(id: unknown): { fetch(request: Request): Promise<Response> };
}

export default {
  fetch(request: Request, env: { SEARCH: Namespace }): Promise<Response> {
    const url = new URL(request.url);
    const match = /^\/o\/([\w-]+)(\/.*)$/.exec(url.pathname);
    if (match === null) return Promise.resolve(Response.json({ error: 'not found' }, { status: 404 }));
    url.pathname = match[2]!;
    return env.SEARCH.get(env.SEARCH.idFromName(match[1]!)).fetch(new Request(url, request));
  },
};
