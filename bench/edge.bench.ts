/**
 * (edge) Workspaces on the edge against the Node daemon, in one run: OURS is the Worker bundle in workerd
 * (miniflare on a loopback port, a workspace's Durable Object with its SQLite storage, `/w/bench/…`), the ANCHOR the
 * Node daemon on the local disk (bench/servers/ours.ts). Both hold the same 10 000-file workspace (written through
 * each one's own API, so the object's storage is what the API made it). Figures:
 * - `GET /api/file` 4 KiB and `PUT /api/file` 4 KiB: requests/s and p99 under wrk (-t2 -c16 -d5s --latency);
 * - `/workspace/tree` (its default 5000-entry budget) and a literal `/workspace/search` for a word in 10 files,
 *   once each side's index has caught up: the median of 15 sequential requests each, interleaved;
 * - a 50 MiB file: one streamed upload, then read back as 50 ranged 1 MiB reads (`/api/raw` with Range), checked.
 * wrk is required (the bench's preparation installs it).
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { request } from 'undici';
import { buildWorkerBundle, projectRoot } from '../runtime/worker-build.ts';
import { startChildServer } from './lib/child-server.ts';
import { agent } from './lib/http-client.ts';
import { log } from './lib/log.ts';
import type { Figure } from './lib/result.ts';
import { median } from './lib/stats.ts';

const FILES = 10_000;
const NEEDLE_FILES = 10;
const SMALL = 'x'.repeat(4095) + '\n';
const BIG_BYTES = 50 * 1024 * 1024;
const RANGE_BYTES = 1024 * 1024;
const LATENCY_RUNS = 15;
const SCRIPT = 'dist/bench-edge/worker.js'; // miniflare runs scripts from under the project

interface WrkResult {
  rps: number;
  p99Ms: number;
  non2xx: number;
}

/** wrk with `--latency`: requests/s and the 99th percentile; `script` (Lua) for a PUT. */
function wrk(url: string, headers: Record<string, string>, script?: string): Promise<WrkResult> {
  const args = ['-t2', '-c16', '-d5s', '--latency'];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}: ${value}`);
  if (script) args.push('-s', script);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      const rps = Number(/Requests\/sec:\s*([\d.]+)/.exec(out)?.[1]);
      const p99 = /\s99%\s+([\d.]+)(us|ms|s)/.exec(out);
      if (code !== 0 || !Number.isFinite(rps) || !p99) return reject(new Error(`wrk failed (${code}):\n${out}`));
      const scale = p99[2] === 'us' ? 0.001 : p99[2] === 's' ? 1000 : 1;
      resolve({ rps, p99Ms: Number(p99[1]) * scale, non2xx: Number(/Non-2xx or 3xx responses:\s*(\d+)/.exec(out)?.[1] ?? 0) });
    });
  });
}

async function call(url: string, init: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array } = {}): Promise<{ status: number; body: Uint8Array }> {
  const response = await request(url, { dispatcher: agent, method: (init.method ?? 'GET') as 'GET', headers: init.headers, body: init.body });
  return { status: response.statusCode, body: new Uint8Array(await response.body.arrayBuffer()) };
}

/** Writes the 10 000 files through the API, 32 in flight: what the edge workspace holds is what its API made. */
async function populate(base: string, headers: Record<string, string>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < FILES) {
      const i = next++;
      const content = `${i < NEEDLE_FILES ? 'the edgeneedle word\n' : ''}export const value${i} = ${i};\n`;
      const { status } = await call(`${base}/api/file?path=${encodeURIComponent(`src/d${i % 100}/f${i}.ts`)}`, {
        method: 'PUT',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ content }),
      });
      if (status !== 200) throw new Error(`populating ${base}: ${status}`);
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

export async function benchEdge(token: string): Promise<Figure[]> {
  const auth = { Authorization: `Bearer ${token}` };
  const scratch = await mkdtemp(join(tmpdir(), 'wsapi-bench-edge-'));
  const root = join(scratch, 'root');
  await mkdir(root);
  await buildWorkerBundle(SCRIPT);
  const mf = new Miniflare({
    scriptPath: join(projectRoot, SCRIPT),
    modules: true,
    compatibilityDate: '2026-04-26',
    durableObjects: { WORKSPACES: { className: 'WorkspaceObject', useSQLite: true } },
    durableObjectsPersist: join(scratch, 'objects'),
    bindings: { WORKSPACE_TOKEN: token, WORKSPACE_MAX_FILE_BYTES: String(64 * 1024 * 1024) },
    host: '127.0.0.1',
    port: 0,
  });
  const node = await startChildServer('anchor', 'ours', { BENCH_ROOT: root, BENCH_TOKEN: token });
  try {
    const edge = `${(await mf.ready).href.replace(/\/$/, '')}/w/bench`;
    const sides = { ours: edge, anchor: node.baseUrl };
    for (const [side, base] of Object.entries(sides)) {
      const started = performance.now();
      await populate(base, auth);
      log(`edge: ${side} holds ${FILES} files after ${((performance.now() - started) / 1000).toFixed(1)} s of PUTs`);
      const { status } = await call(`${base}/api/file?path=small.txt`, { method: 'PUT', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ content: SMALL }) });
      if (status !== 200) throw new Error(`${side}: small file ${status}`);
    }

    // Each side's search engine caught up with the 10 000 writes before any figure (Node's index builds in the
    // background; the object's waits for itself): like for like, index against index.
    for (const [side, base] of Object.entries(sides)) {
      const deadline = performance.now() + 120_000;
      for (;;) {
        const { status, body } = await call(`${base}/workspace/search?query=edgeneedle&mode=find&literal=true`, { headers: { ...auth, 'x-intentic-control': token } });
        const state = (JSON.parse(new TextDecoder().decode(body)) as { freshness?: { state?: string } }).freshness?.state;
        if (status === 200 && state === 'fresh') break;
        if (performance.now() > deadline) throw new Error(`${side}: the search index did not catch up (${status}, ${state})`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }

    const figures: Figure[] = [];
    const putScript = join(scratch, 'put.lua');
    // A Lua long string, so the escapes inside the JSON reach the server as they are.
    await writeFile(putScript, `wrk.method = "PUT"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = [[${JSON.stringify({ content: SMALL })}]]\n`);
    for (const [label, path, script] of [
      ['GET /api/file 4 KiB', '/api/file?path=small.txt', undefined],
      ['PUT /api/file 4 KiB', '/api/file?path=put.txt', putScript],
    ] as const) {
      const results: Record<'ours' | 'anchor', WrkResult[]> = { ours: [], anchor: [] };
      for (let run = 0; run < 3; run++) {
        for (const side of ['ours', 'anchor'] as const) results[side].push(await wrk(sides[side] + path, auth, script));
      }
      const rps = (side: 'ours' | 'anchor') => median(results[side].map((r) => r.rps));
      const p99 = (side: 'ours' | 'anchor') => median(results[side].map((r) => r.p99Ms));
      const errors = [...results.ours, ...results.anchor].reduce((n, r) => n + r.non2xx, 0);
      if (errors > 0) throw new Error(`${label}: ${errors} non-2xx answers`);
      figures.push({ figure: `edge ${label}: workerd (DO SQLite) vs Node (disk)`, unit: 'req/s', ours: rps('ours'), anchor: rps('anchor'), higherIsBetter: true, note: 'wrk -t2 -c16 -d5s, median of 3 interleaved' });
      figures.push({ figure: `edge ${label} p99`, unit: 'ms', ours: p99('ours'), anchor: p99('anchor'), higherIsBetter: false, note: 'same runs' });
    }

    for (const [label, path, check] of [
      ['/workspace/tree (5000-entry budget)', '/workspace/tree', (body: string) => body.includes('"tree"')],
      ['/workspace/search literal, 10 of 10 000 files', '/workspace/search?query=edgeneedle&mode=find&literal=true', (body: string) => (JSON.parse(body) as { total: number }).total === NEEDLE_FILES],
    ] as const) {
      const times: Record<'ours' | 'anchor', number[]> = { ours: [], anchor: [] };
      for (let run = 0; run <= LATENCY_RUNS; run++) {
        for (const side of ['ours', 'anchor'] as const) {
          const started = performance.now();
          const { status, body } = await call(sides[side] + path, { headers: { ...auth, 'x-intentic-control': token } });
          const ms = performance.now() - started;
          if (status !== 200 || !check(new TextDecoder().decode(body))) throw new Error(`${side} ${path}: ${status}`);
          if (run > 0) times[side].push(ms); // the first of each is a warm-up
        }
      }
      figures.push({ figure: `edge ${label}`, unit: 'ms', ours: median(times.ours), anchor: median(times.anchor), higherIsBetter: false, note: `median of ${LATENCY_RUNS} sequential, interleaved, after one each` });
    }

    const big = new Uint8Array(BIG_BYTES);
    for (let i = 0; i < big.length; i++) big[i] = (i * 131 + (i >>> 13)) & 0xff;
    for (const [label, measure] of [
      ['50 MiB upload', async (base: string) => {
        const { status } = await call(`${base}/workspace/upload?path=big.bin`, { method: 'POST', headers: { ...auth, 'x-intentic-control': token, 'content-type': 'application/octet-stream' }, body: big });
        if (status !== 200) throw new Error(`upload ${status}`);
      }],
      ['50 MiB read back as 50 ranged 1 MiB reads', async (base: string) => {
        for (let offset = 0; offset < BIG_BYTES; offset += RANGE_BYTES) {
          const { status, body } = await call(`${base}/api/raw?path=big.bin`, { headers: { ...auth, range: `bytes=${offset}-${offset + RANGE_BYTES - 1}` } });
          if (status !== 206 || body.byteLength !== RANGE_BYTES || body[0] !== big[offset] || body[RANGE_BYTES - 1] !== big[offset + RANGE_BYTES - 1]) {
            throw new Error(`range at ${offset}: ${status}, ${body.byteLength} bytes`);
          }
        }
      }],
    ] as const) {
      const ms: Record<'ours' | 'anchor', number> = { ours: 0, anchor: 0 };
      for (const side of ['ours', 'anchor'] as const) {
        const started = performance.now();
        await measure(sides[side]);
        ms[side] = performance.now() - started;
      }
      figures.push({ figure: `edge ${label}`, unit: 'ms', ours: ms.ours, anchor: ms.anchor, higherIsBetter: false, note: 'one run each, bytes checked' });
    }
    return figures;
  } finally {
    await Promise.all([mf.dispose(), node.stop()]);
    await rm(scratch, { recursive: true, force: true });
  }
}
