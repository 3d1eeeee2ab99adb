import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback-listen.ts';

/**
 * What the server does with a request:
 * - `normal`: git's smart HTTP (`git http-backend` as a CGI), so clone and fetch work for real;
 * - `auth`: 401 with `WWW-Authenticate: Basic` for everything (a private remote without credentials);
 * - `hang`: accepts the request and never answers (a remote that stalls).
 */
export type GitHttpMode = 'normal' | 'auth' | 'hang';

export interface GitHttpServer {
  /** `http://127.0.0.1:PORT`; a bare repo `<projectRoot>/x.git` is `${url}/x.git`. */
  url: string;
  /** How many requests arrived (`hang`: proves git got as far as asking). */
  readonly requests: number;
  /** Stops listening, drops open connections, kills running backends. */
  close(): Promise<void>;
}

export interface GitHttpServerOptions {
  /** The folder of bare repositories it serves (GIT_PROJECT_ROOT). */
  projectRoot: string;
  mode?: GitHttpMode;
}

/** A loopback smart-HTTP git remote for tests: a Node http server in front of `git http-backend`. */
export async function startGitHttpServer({ projectRoot, mode = 'normal' }: GitHttpServerOptions): Promise<GitHttpServer> {
  const backends = new Set<ChildProcess>();
  let requests = 0;
  const server = createServer((request, response) => {
    requests++;
    if (mode === 'hang') return; // never answered; close() drops the socket
    if (mode === 'auth') {
      response.writeHead(401, { 'www-authenticate': 'Basic realm="git"', 'content-type': 'text/plain' });
      response.end('authentication required\n');
      return;
    }
    const backend = runHttpBackend(projectRoot, request, response);
    backends.add(backend);
    backend.once('close', () => backends.delete(backend));
  });
  const { port, sockets } = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    async close() {
      for (const backend of backends) backend.kill('SIGKILL');
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * One CGI request: the request line and headers become the CGI variables, the body goes to the backend's stdin,
 * and its stdout is a CGI response (`Status:` and headers, a blank line, the body).
 */
function runHttpBackend(projectRoot: string, request: IncomingMessage, response: ServerResponse): ChildProcess {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    GIT_PROJECT_ROOT: projectRoot,
    GIT_HTTP_EXPORT_ALL: '1',
    GIT_CONFIG_NOSYSTEM: '1',
    HOME: projectRoot,
    GATEWAY_INTERFACE: 'CGI/1.1',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.slice(1),
    REQUEST_METHOD: request.method ?? 'GET',
    CONTENT_TYPE: request.headers['content-type'] ?? '',
    REMOTE_ADDR: request.socket.remoteAddress ?? '127.0.0.1',
  };
  // Every request header as HTTP_*, as a web server does: git reads HTTP_GIT_PROTOCOL (protocol v2) and
  // HTTP_CONTENT_ENCODING (git gzips large request bodies) from there.
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') env[`HTTP_${name.toUpperCase().replace(/-/g, '_')}`] = value;
  }
  if (request.headers['content-length'] !== undefined) env.CONTENT_LENGTH = request.headers['content-length'];

  const backend = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  request.pipe(backend.stdin!);
  backend.stdin!.on('error', () => {}); // the backend may answer (an error) without reading the whole body
  backend.stderr!.resume();

  let head = Buffer.alloc(0);
  let headersSent = false;
  backend.stdout!.on('data', (chunk: Buffer) => {
    if (headersSent) {
      response.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = headerEnd(head);
    if (end === undefined) return;
    const { status, headers } = parseCgiHeaders(head.subarray(0, end.at).toString('latin1'));
    response.writeHead(status, headers);
    headersSent = true;
    response.write(head.subarray(end.at + end.length));
  });
  backend.once('close', () => {
    if (!headersSent) response.writeHead(502, { 'content-type': 'text/plain' });
    response.end();
  });
  backend.once('error', () => {
    if (!response.headersSent) response.writeHead(500);
    response.end();
  });
  return backend;
}

/** Where a CGI header block ends: the first blank line, `\r\n\r\n` or `\n\n` (git writes the former). */
function headerEnd(buffer: Buffer): { at: number; length: number } | undefined {
  const crlf = buffer.indexOf('\r\n\r\n');
  const lf = buffer.indexOf('\n\n');
  if (crlf !== -1 && (lf === -1 || crlf < lf)) return { at: crlf, length: 4 };
  if (lf !== -1) return { at: lf, length: 2 };
  return undefined;
}

function parseCgiHeaders(block: string): { status: number; headers: Record<string, string> } {
  let status = 200;
  const headers: Record<string, string> = {};
  for (const line of block.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 500;
    else headers[name] = value;
  }
  return { status, headers };
}
