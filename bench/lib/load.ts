/**
 * Requests-per-second load generation: `wrk` when installed (a C load generator in its own process, so it never
 * competes with a Node event loop), else an in-process undici loop with the same concurrency.
 */
import { spawn } from 'node:child_process';
import { request } from 'undici';
import { hasCommand } from '../prepare-corpus.ts';
import { agent } from './http-client.ts';

export interface LoadOptions {
  url: string;
  headers: Record<string, string>;
  connections: number;
  seconds: number;
  /** wrk's `-t` (default 1); the in-process loop ignores it. */
  threads?: number;
}

export interface LoadResult {
  rps: number;
  requests: number;
  errors: number;
}

export function loadGeneratorName(): string {
  return hasCommand('wrk') ? 'wrk' : 'in-process undici loop';
}

export function runLoad(options: LoadOptions): Promise<LoadResult> {
  return hasCommand('wrk') ? runWrk(options) : runUndiciLoop(options);
}

function runWrk({ url, headers, connections, seconds, threads = 1 }: LoadOptions): Promise<LoadResult> {
  const args = [`-t${threads}`, `-c${connections}`, `-d${seconds}s`];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      const rps = Number(/Requests\/sec:\s*([\d.]+)/.exec(out)?.[1]);
      const requests = Number(/(\d+) requests in/.exec(out)?.[1]);
      const non2xx = Number(/Non-2xx or 3xx responses:\s*(\d+)/.exec(out)?.[1] ?? 0);
      const socketErrors = /Socket errors:.*/.exec(out)?.[0];
      if (code !== 0 || !Number.isFinite(rps)) return reject(new Error(`wrk failed (${code}):\n${out}`));
      if (socketErrors) process.stderr.write(`[bench] wrk: ${socketErrors}\n`);
      resolve({ rps, requests, errors: non2xx });
    });
  });
}

async function runUndiciLoop({ url, headers, connections, seconds }: LoadOptions): Promise<LoadResult> {
  const deadline = performance.now() + seconds * 1000;
  let requests = 0;
  let errors = 0;
  const started = performance.now();
  async function worker(): Promise<void> {
    while (performance.now() < deadline) {
      const response = await request(url, { dispatcher: agent, headers });
      await response.body.arrayBuffer();
      if (response.statusCode === 200) requests++;
      else errors++;
    }
  }
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (performance.now() - started) / 1000;
  return { rps: requests / elapsed, requests, errors };
}
