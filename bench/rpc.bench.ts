/**
 * (h) `/ws` request round trips against the HTTP equivalents ON THE SAME SERVER (one server child):
 *   `file_exists {path}`  vs `GET /workspace-files/stat?path=`   (both: one stat inside the root)
 *   `read_file {path}`    vs `GET /api/file?path=`               (both: a 4 KiB text file read whole, as JSON)
 * Sequential: SEQUENTIAL calls one after another — on one `/ws` socket (bench/lib/rpc-socket.ts: reply
 * matched by id), and on one keep-alive HTTP connection (undici `request`, Bearer token, body read to the
 * end); p50 and p99 per run. Concurrent: IN_FLIGHT requests kept in flight for CONCURRENT_MS — all on ONE
 * `/ws` socket (as the UI multiplexes) vs IN_FLIGHT keep-alive HTTP connections; requests per second. RUNS runs,
 * every side in turn after one warm-up each; figures are medians over runs. Ours = `/ws`, anchor = HTTP.
 * The replies are checked once, untimed (`true`, the file's text, HTTP 200s).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { startChildServer } from './lib/child-server.ts';
import { log } from './lib/log.ts';
import type { Figure } from './lib/result.ts';
import { RpcSocket } from './lib/rpc-socket.ts';
import { median, percentile, sampleRoundRobin } from './lib/stats.ts';

const RUNS = 5;
const SEQUENTIAL = 300;
const IN_FLIGHT = 16;
const CONCURRENT_MS = 1_500;

interface Pair {
  name: string;
  /** The /ws call. */
  command: string;
  /** The HTTP route (path and query). */
  http: string;
  label: string;
}

type Call = () => Promise<void>;

export async function benchRpc(root: string, fileName: string, token: string): Promise<Figure[]> {
  const server = await startChildServer('ours', 'ours', { BENCH_ROOT: root, BENCH_TOKEN: token });
  // One connection for the sequential HTTP loop, IN_FLIGHT for the concurrent one: keep-alive, no pipelining.
  const single = new Agent({ connections: 1, pipelining: 1, keepAliveTimeout: 30_000 });
  const pool = new Agent({ connections: IN_FLIGHT, pipelining: 1, keepAliveTimeout: 30_000 });
  const socket = await RpcSocket.connect(server.baseUrl, token);
  try {
    const absolute = join(root, fileName);
    const expected = await readFile(absolute, 'utf8');
    const headers = { authorization: `Bearer ${token}` };
    const query = `?path=${encodeURIComponent(fileName)}`;
    const pairs: Pair[] = [
      { name: 'exists', command: 'file_exists', http: `/workspace-files/stat${query}`, label: '/ws file_exists vs GET /workspace-files/stat' },
      { name: 'read', command: 'read_file', http: `/api/file${query}`, label: '/ws read_file 4 KiB vs GET /api/file' },
    ];

    // Untimed: each side answers what it should, so a broken endpoint never produces a figure.
    const exists = await socket.call('file_exists', { path: absolute });
    if (!exists.ok || exists.result !== true) throw new Error(`file_exists → ${JSON.stringify(exists)}`);
    const read = await socket.call('read_file', { path: absolute });
    if (!read.ok || read.result !== expected) throw new Error(`read_file → ${JSON.stringify(read).slice(0, 300)}`);
    for (const pair of pairs) {
      const response = await request(server.baseUrl + pair.http, { dispatcher: single, headers });
      const body = await response.body.text();
      if (response.statusCode !== 200) throw new Error(`GET ${pair.http} → ${response.statusCode}: ${body.slice(0, 300)}`);
      if (pair.name === 'read' && (JSON.parse(body) as { content?: string }).content !== expected) throw new Error(`GET ${pair.http}: wrong content`);
    }

    const wsCall = (command: string): Call => async () => {
      const reply = await socket.call(command, { path: absolute });
      if (!reply.ok) throw new Error(`/ws ${command}: ${reply.error}`);
    };
    const httpCall = (path: string, dispatcher: Agent): Call => async () => {
      const response = await request(server.baseUrl + path, { dispatcher, headers });
      await response.body.arrayBuffer();
      if (response.statusCode !== 200) throw new Error(`GET ${path} → ${response.statusCode}`);
    };
    const sequential = (call: Call) => async () => {
      const ms: number[] = [];
      for (let i = 0; i < SEQUENTIAL; i++) {
        const started = performance.now();
        await call();
        ms.push(performance.now() - started);
      }
      return ms;
    };
    const concurrent = (call: Call) => async () => {
      const deadline = performance.now() + CONCURRENT_MS;
      let done = 0;
      const worker = async () => {
        while (performance.now() < deadline) {
          await call();
          done++;
        }
      };
      const started = performance.now();
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
      return done / ((performance.now() - started) / 1000);
    };

    const figures: Figure[] = [];
    for (const pair of pairs) {
      const [wsSeq, httpSeq] = await sampleRoundRobin(RUNS, [sequential(wsCall(pair.command)), sequential(httpCall(pair.http, single))]);
      const [wsRps, httpRps] = await sampleRoundRobin(RUNS, [concurrent(wsCall(pair.command)), concurrent(httpCall(pair.http, pool))]);
      const p = (runs: number[][], q: number) => median(runs.map((ms) => percentile(ms, q)));
      const fmt = (runs: number[][], q: number) => runs.map((ms) => percentile(ms, q).toFixed(3)).join(', ');
      log(
        `${pair.label}: p50 /ws [${fmt(wsSeq!, 50)}] http [${fmt(httpSeq!, 50)}] ms; p99 /ws [${fmt(wsSeq!, 99)}] ` +
          `http [${fmt(httpSeq!, 99)}] ms; ${IN_FLIGHT} in flight /ws [${wsRps!.map((x) => x.toFixed(0)).join(', ')}] ` +
          `http [${httpRps!.map((x) => x.toFixed(0)).join(', ')}] req/s`,
      );
      const note = `ours = /ws, anchor = HTTP on the same server`;
      figures.push(
        { figure: `${pair.label}, p50`, unit: 'ms', ours: p(wsSeq!, 50), anchor: p(httpSeq!, 50), higherIsBetter: false, note: `${SEQUENTIAL} sequential calls; ${note}` },
        { figure: `${pair.label}, p99`, unit: 'ms', ours: p(wsSeq!, 99), anchor: p(httpSeq!, 99), higherIsBetter: false, note: `${SEQUENTIAL} sequential calls; ${note}` },
        {
          figure: `${pair.label}, ${IN_FLIGHT} in flight`,
          unit: 'req/s',
          ours: median(wsRps!),
          anchor: median(httpRps!),
          higherIsBetter: true,
          note: `one /ws socket vs ${IN_FLIGHT} HTTP connections, ${CONCURRENT_MS / 1000} s a run; ${note}`,
        },
      );
    }
    return figures;
  } finally {
    await socket.close().catch(() => {});
    await Promise.all([single.close(), pool.close()]);
    await server.stop();
  }
}
