/**
 * (b) Streaming a 1 GiB file: GET /api/raw, GET /workspace/raw (its 25 MiB cap lifted for the bench), and GET
 * /workspace/media with a ticket (no token, as a `<video>` sends it), vs a bare node:http server piping
 * fs.createReadStream. Same client for all: `curl -o /dev/null` (bench/lib/curl.ts), which outruns both
 * servers; figure = median MiB/s of RUNS runs, interleaved ours/anchor after one warm-up each. The note gives
 * each server's median CPU time per GiB (bench/lib/process-cpu.ts), the steadier number on a shared machine.
 */
import { request } from 'undici';
import { log } from './lib/log.ts';
import { startChildServer, type ChildServer } from './lib/child-server.ts';
import { curlDownload } from './lib/curl.ts';
import { agent } from './lib/http-client.ts';
import { processCpuMs } from './lib/process-cpu.ts';
import type { Figure } from './lib/result.ts';
import { median, sampleInterleaved } from './lib/stats.ts';
import { BIG_FILE_BYTES } from './prepare-corpus.ts';

const RUNS = 5;
const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** One download: MiB/s, and the server's CPU ms per GiB while it ran (pushed onto `cpu`). */
async function throughput(
  url: string,
  headers: Record<string, string>,
  server: ChildServer,
  cpu: number[],
): Promise<number> {
  const cpuBefore = processCpuMs(server.pid);
  const { status, bytes, bytesPerSecond } = await curlDownload(url, headers);
  const cpuAfter = processCpuMs(server.pid);
  if (status !== 200 || bytes !== BIG_FILE_BYTES) throw new Error(`GET ${url} → ${status}, ${bytes} bytes`);
  if (cpuBefore !== undefined && cpuAfter !== undefined) cpu.push(((cpuAfter - cpuBefore) * GiB) / bytes);
  return bytesPerSecond / MiB;
}

async function mintTicket(ours: ChildServer, token: string, path: string): Promise<string> {
  const response = await request(`${ours.baseUrl}/workspace/media-ticket`, {
    dispatcher: agent,
    method: 'POST',
    headers: { 'x-intentic-control': token, 'content-type': 'application/json' },
    body: JSON.stringify({ path }),
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`media-ticket → ${response.statusCode}: ${text}`);
  return (JSON.parse(text) as { ticket: string }).ticket;
}

interface Side {
  server: ChildServer;
  url: string;
  headers: Record<string, string>;
}

async function figure(name: string, ours: Side, anchor: Side): Promise<Figure> {
  const oursCpu: number[] = [];
  const anchorCpu: number[] = [];
  const { ours: oursSamples, anchor: anchorSamples } = await sampleInterleaved(
    RUNS,
    () => throughput(ours.url, ours.headers, ours.server, oursCpu),
    () => throughput(anchor.url, anchor.headers, anchor.server, anchorCpu),
  );
  const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
  log(`${name}: ours [${fmt(oursSamples)}] MiB/s | anchor [${fmt(anchorSamples)}] MiB/s`);
  log(`${name}: server CPU ms/GiB ours [${fmt(oursCpu)}] | anchor [${fmt(anchorCpu)}] (first of each is the warm-up)`);
  const steady = (xs: number[]) => median(xs.slice(1));
  const [oursCpuMs, anchorCpuMs] = [steady(oursCpu), steady(anchorCpu)];
  const ratio = (oursCpuMs / anchorCpuMs).toFixed(2);
  const note =
    oursCpu.length > 1 && anchorCpu.length > 1
      ? `server CPU/GiB: ours ${oursCpuMs.toFixed(0)} ms, anchor ${anchorCpuMs.toFixed(0)} ms (${ratio}x)`
      : undefined;
  return {
    figure: name,
    unit: 'MiB/s',
    ours: median(oursSamples),
    anchor: median(anchorSamples),
    higherIsBetter: true,
    note,
  };
}

export async function benchRawStream(filesRoot: string, fileName: string, token: string): Promise<Figure[]> {
  // /workspace/raw refuses files over 25 MiB (big media streams from /workspace/media): lifted here so the
  // same 1 GiB file measures its path.
  const limits = JSON.stringify({ maxRawBytes: 2 * BIG_FILE_BYTES });
  const ours = await startChildServer('ours', 'ours', { BENCH_ROOT: filesRoot, BENCH_TOKEN: token, BENCH_LIMITS: limits });
  const bare = await startChildServer('anchor', 'bare', { BENCH_ROOT: filesRoot });
  try {
    const path = encodeURIComponent(fileName);
    const anchor: Side = { server: bare, url: `${bare.baseUrl}/raw?path=${path}`, headers: {} };
    const raw = await figure(
      'raw stream 1 GiB',
      { server: ours, url: `${ours.baseUrl}/api/raw?path=${path}`, headers: { authorization: `Bearer ${token}` } },
      anchor,
    );
    const workspaceRaw = await figure(
      'workspace raw stream 1 GiB',
      { server: ours, url: `${ours.baseUrl}/workspace/raw?path=${path}`, headers: { 'x-intentic-control': token } },
      anchor,
    );
    // A media element's request: the ticket in the URL, no token, no header.
    const ticket = encodeURIComponent(await mintTicket(ours, token, fileName));
    const media = await figure(
      'media stream 1 GiB',
      { server: ours, url: `${ours.baseUrl}/workspace/media?path=${path}&ticket=${ticket}`, headers: {} },
      anchor,
    );
    return [raw, workspaceRaw, media];
  } finally {
    await Promise.all([ours.stop(), bare.stop()]);
  }
}
