import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/**
 * Whether anything answers HTTP on 127.0.0.1:`port` (a dev server's health, docs/intentic-projects.md#apps): `GET /` over
 * plain HTTP, then over HTTPS accepting self-signed certificates, both within `timeoutMs` in all. Any status
 * counts. A refused connection ends the probe at once; nothing is left open.
 */
export async function probeHttp(port: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  const plain = await attempt('http', port, timeoutMs);
  if (plain === 'answered') return true;
  const left = deadline - Date.now();
  if (plain === 'refused' || plain === 'timeout' || left <= 0) return false;
  return (await attempt('https', port, left)) === 'answered';
}

type Outcome = 'answered' | 'refused' | 'timeout' | 'failed';

function attempt(scheme: 'http' | 'https', port: number, timeoutMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(outcome);
    };
    const options = { host: '127.0.0.1', port, path: '/', method: 'GET', agent: false as const, headers: { connection: 'close' } };
    const request =
      scheme === 'http'
        ? httpRequest(options, (response) => {
            response.resume();
            finish('answered');
          })
        : httpsRequest({ ...options, rejectUnauthorized: false }, (response) => {
            response.resume();
            finish('answered');
          });
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => finish(error.code === 'ECONNREFUSED' ? 'refused' : 'failed'));
    request.end();
  });
}
