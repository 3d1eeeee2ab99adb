/**
 * A loopback HTTP proxy that lets a request through to `target` only with one user's Basic credentials, else 401
 * with `WWW-Authenticate: Basic` — in front of test/support/git-http-server.ts it is a private git remote, the
 * kind a clone URL carries `user:password@` for.
 */
import { createServer, request as forward } from 'node:http';
import { listenOnLoopback } from './loopback-listen.ts';

export interface BasicAuthProxy {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** Requests refused for missing or wrong credentials, and let through. */
  readonly refused: number;
  readonly passed: number;
  close(): Promise<void>;
}

export async function startBasicAuthProxy(target: string, user: string, password: string): Promise<BasicAuthProxy> {
  const expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const upstream = new URL(target);
  let refused = 0;
  let passed = 0;
  const server = createServer((request, response) => {
    if (request.headers.authorization !== expected) {
      refused++;
      response.writeHead(401, { 'www-authenticate': 'Basic realm="private"', 'content-type': 'text/plain' });
      response.end('authentication required\n');
      return;
    }
    passed++;
    const headers = { ...request.headers, host: upstream.host };
    delete headers.authorization;
    const onward = forward({ host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    onward.on('error', () => response.destroy());
    request.pipe(onward);
  });
  const { port, sockets } = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    get refused() {
      return refused;
    },
    get passed() {
      return passed;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
