import { createServer } from 'node:net';

/**
 * A TCP port nothing listens on now: the kernel's pick for a listener on every interface (so it is free on
 * 127.0.0.1, 0.0.0.0 and ::), closed again at once. Another program could take it before the dev server does;
 * the kernel hands out ephemeral ports in turn, which makes that unlikely.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}
