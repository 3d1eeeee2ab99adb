/**
 * A typed client of the daemon's HTTP routes: one `call` per route, keyed as the OpenAPI document keys it
 * (`'GET /workspace/tree'`), its query, path parameters, body and JSON answer typed from the very schemas the
 * handlers parse with and the document describes (runtime/openapi/route-docs.ts). Only `fetch`: it runs in
 * browsers, Node and Workers, and against an app in the same process (pass its `fetch`). Routes that answer bytes
 * (raw files, media, the change feed) are reached with `request`, which returns the Response itself.
 */
import type { z } from 'zod';
import type { routeDocs } from '../runtime/openapi/route-docs.ts';
import { createRpcClient, type RpcClient, type RpcClientOptions } from './rpc-client.ts';

type Docs = typeof routeDocs;

/** Every route, as `METHOD /path` with `{param}` path parameters. */
export type HttpRoute = keyof Docs & string;

type Field<K extends HttpRoute, F extends string> = Docs[K] extends Record<F, infer S> ? (S extends z.ZodType ? z.input<S> : never) : undefined;

type Fields<K extends HttpRoute> = { query: Field<K, 'query'>; params: Field<K, 'params'>; body: Field<K, 'body'> };

/** The fields a route has: required when something in them is, optional when all of it is (`{}` fits). */
type Present<T> = { [P in keyof T as T[P] extends undefined ? never : {} extends T[P] ? never : P]: T[P] } & {
  [P in keyof T as T[P] extends undefined ? never : {} extends T[P] ? P : never]?: T[P];
};

/** What a route takes: `query`, `params` and a JSON `body` where it has them; `raw` for an upload's bytes. */
export type HttpInput<K extends HttpRoute> = Present<Fields<K>> & {
  raw?: BodyInit;
  headers?: Record<string, string>;
  signal?: AbortSignal;
};

type RequiredKeys<T> = { [P in keyof T]-?: {} extends Pick<T, P> ? never : P }[keyof T];

type SuccessDoc<K extends HttpRoute> = Docs[K]['responses'] extends infer R
  ? R extends { 200: infer D }
    ? D
    : R extends { 201: infer D }
      ? D
      : never
  : never;

/** A route's JSON answer (its 200, or 201 for a creation), typed from its documented schema. */
export type HttpAnswer<K extends HttpRoute> =
  SuccessDoc<K> extends infer D ? ('json' extends RequiredKeys<D> ? (D extends { json: infer S extends z.ZodType } ? z.output<S> : never) : never) : never;

/** Routes whose success is a JSON body (`call`); the others answer bytes or upgrade (`request`). */
export type JsonRoute = { [K in HttpRoute]: HttpAnswer<K> extends never ? never : K }[HttpRoute];

export interface WorkspaceClientOptions {
  /** The daemon's base URL, its gateway base path included (`https://gw.example/sandbox/ws1`). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …` (and as `?token=` on the `/ws` socket). */
  token?: string;
  /** Default: the global `fetch`. An in-process app: `(request) => app.fetch(request)`. */
  fetch?: (request: Request) => Promise<Response>;
  /** For `rpc()`: the WebSocket constructor where there is no global one (Node 20: undici's). */
  WebSocket?: RpcClientOptions['WebSocket'];
}

/** A non-2xx answer: `message` is the dialect's own error text; `body` the parsed JSON (or text) it came in. */
export class WorkspaceClientError extends Error {
  override readonly name = 'WorkspaceClientError';
  constructor(
    message: string,
    readonly status: number,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export interface WorkspaceClient {
  /** Calls a route that answers JSON: its typed answer, or a WorkspaceClientError. */
  call<K extends JsonRoute>(route: K, ...input: {} extends HttpInput<K> ? [HttpInput<K>?] : [HttpInput<K>]): Promise<HttpAnswer<K>>;
  /** Any route, the Response as it came (bytes, ranges, SSE); non-2xx answers are returned, not thrown. */
  request<K extends HttpRoute>(route: K, ...input: {} extends HttpInput<K> ? [HttpInput<K>?] : [HttpInput<K>]): Promise<Response>;
  /** The `/ws` protocol's typed client (client/rpc-client.ts) on the same daemon. */
  rpc(options?: Omit<RpcClientOptions, 'baseUrl' | 'token'>): RpcClient;
}

export function createWorkspaceClient(options: WorkspaceClientOptions): WorkspaceClient {
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const base = options.baseUrl.replace(/\/+$/, '');

  async function request(route: string, input: Record<string, unknown> = {}): Promise<Response> {
    const space = route.indexOf(' ');
    const method = route.slice(0, space);
    const path = route
      .slice(space + 1)
      .replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String((input.params as Record<string, unknown> | undefined)?.[name] ?? '')));
    const url = new URL(base + path);
    for (const [key, value] of Object.entries((input.query as Record<string, unknown> | undefined) ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const headers = new Headers(input.headers as Record<string, string> | undefined);
    if (options.token !== undefined) headers.set('authorization', `Bearer ${options.token}`);
    let body: BodyInit | undefined;
    if (input.body !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(input.body);
    } else if (input.raw !== undefined) {
      if (!headers.has('content-type')) headers.set('content-type', 'application/octet-stream');
      body = input.raw as BodyInit;
    }
    const init: RequestInit & { duplex?: 'half' } = { method, headers, body, signal: input.signal as AbortSignal | undefined };
    if (body instanceof ReadableStream) init.duplex = 'half';
    return send(new Request(url, init));
  }

  return {
    async call(route, ...input) {
      const response = await request(route, input[0] as Record<string, unknown> | undefined);
      const text = await response.text();
      const parsed = parseJson(text);
      if (!response.ok) throw new WorkspaceClientError(errorMessage(parsed, response), response.status, parsed);
      return parsed as never;
    },
    request: (route, ...input) => request(route, input[0] as Record<string, unknown> | undefined),
    rpc: (rpcOptions = {}) =>
      createRpcClient({
        ...rpcOptions,
        baseUrl: base,
        ...(options.token === undefined ? {} : { token: options.token }),
        ...(rpcOptions.WebSocket === undefined && options.WebSocket !== undefined ? { WebSocket: options.WebSocket } : {}),
      }),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The dialects' error texts: `{error: "…"}` (ori, terminals, byte routes), oRPC's `{message}`, workspace-files' `{error: {message}}`. */
function errorMessage(body: unknown, response: Response): string {
  if (typeof body === 'object' && body !== null) {
    const record = body as { error?: unknown; message?: unknown };
    if (typeof record.error === 'string') return record.error;
    if (typeof record.error === 'object' && record.error !== null && typeof (record.error as { message?: unknown }).message === 'string') {
      return (record.error as { message: string }).message;
    }
    if (typeof record.message === 'string') return record.message;
  }
  return `${response.status} ${response.statusText}`.trim();
}
