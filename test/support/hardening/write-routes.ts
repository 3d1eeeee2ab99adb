/**
 * The daemon's write routes as the kill harness calls them (./write-load.ts): ori's `PUT /api/file`, Intentic's
 * upload, move and copy, and `/ws` commands. A failure the daemon answers is a Refused; a connection the kill cut
 * is any other error.
 */
import type { SocketClient, SocketReply } from './socket-client.ts';
import type { Version } from './versioned-content.ts';

export interface Daemon {
  url: string;
  token: string;
}

/** A request the daemon answered with a failure: the load records it and goes on. */
export class Refused extends Error {}

export type Send = <T>(request: () => Promise<T>) => Promise<T>;

/** The HTTP dialects' writes; a non-2xx answer is a Refused, a failed connection a plain error. */
export class HttpWrites {
  constructor(
    private readonly daemon: Daemon,
    private readonly send: Send,
  ) {}

  put(path: string, version: Version): Promise<void> {
    const body = JSON.stringify({ content: Buffer.from(version.bytes).toString('latin1') });
    return this.#request(`/api/file?path=${encodeURIComponent(path)}`, 'PUT', body, 'application/json');
  }

  upload(path: string, version: Version): Promise<void> {
    return this.#request(`/workspace/upload?path=${encodeURIComponent(path)}`, 'POST', version.bytes, 'application/octet-stream');
  }

  call(route: string, body: unknown): Promise<void> {
    return this.#request(route, 'POST', JSON.stringify(body), 'application/json');
  }

  #request(target: string, method: string, body: string | Uint8Array<ArrayBuffer>, type: string): Promise<void> {
    return this.send(async () => {
      const response = await fetch(`${this.daemon.url}${target}`, {
        method,
        headers: { authorization: `Bearer ${this.daemon.token}`, 'content-type': type },
        body,
      });
      const text = await response.text();
      if (!response.ok) throw new Refused(`${method} ${target.split('?')[0]}: ${response.status} ${text.slice(0, 200)}`);
    });
  }
}

/** The `/ws` protocol's writes; `ok: false` is a Refused, a closed socket a plain error. */
export class SocketWrites {
  constructor(
    private readonly socket: SocketClient,
    private readonly send: Send,
  ) {}

  write(path: string, version: Version): Promise<void> {
    return this.call('write_file', { path, content: Buffer.from(version.bytes).toString('latin1') });
  }

  upload(path: string, version: Version): Promise<void> {
    return this.call('upload_file', { path, content: Buffer.from(version.bytes).toString('base64') });
  }

  call(command: string, args: unknown): Promise<void> {
    return this.send(async () => {
      const reply: SocketReply = await this.socket.call(command, args);
      if (!reply.ok) throw new Refused(`${command}: ${reply.error}`);
    });
  }
}
