/**
 * A change-feed subscriber (`GET /workspace-files/changes`, docs/workspace-files.md#changes): reads the event
 * stream, counts its frames by kind, and reports a stream that ends or fails while nobody asked it to.
 */
import { request, type ClientRequest } from 'node:http';
import type { Tally } from './tally.ts';

export interface ChangeFeedClient {
  /** Resolves once the first frame, `ready`, has come. */
  readonly ready: Promise<void>;
  frames(kind: string): number;
  stop(): void;
}

export function subscribeChanges(baseUrl: string, token: string, tally: Tally): ChangeFeedClient {
  const counts = new Map<string, number>();
  let stopping = false;
  let req: ClientRequest;
  const ready = new Promise<void>((resolve, reject) => {
    req = request(`${baseUrl}/workspace-files/changes`, { headers: { authorization: `Bearer ${token}` } }, (response) => {
      if (response.statusCode !== 200) {
        reject(new Error(`changes: HTTP ${response.statusCode}`));
        response.resume();
        return;
      }
      let buffer = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (!line.startsWith('data:')) continue;
          const kind = (JSON.parse(line.slice(5)) as { kind: string }).kind;
          counts.set(kind, (counts.get(kind) ?? 0) + 1);
          if (kind === 'ready') resolve();
        }
      });
      response.on('end', () => {
        if (!stopping) tally.error('change feed ended unexpectedly', 'the stream ended');
      });
      response.on('error', (error) => {
        if (!stopping) tally.error('change feed failed', error);
      });
    });
    req.on('error', (error) => {
      if (!stopping) tally.error('change feed failed', error);
      reject(error);
    });
    req.end();
  });
  ready.catch(() => {});
  return {
    ready,
    frames: (kind) => counts.get(kind) ?? 0,
    stop() {
      stopping = true;
      req.destroy();
    },
  };
}
