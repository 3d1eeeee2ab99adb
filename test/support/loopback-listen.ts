/** A test's own HTTP server on 127.0.0.1 at a free port, with the sockets it holds, so `close` can end them all. */
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export async function listenOnLoopback(server: Server): Promise<{ port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, sockets };
}
