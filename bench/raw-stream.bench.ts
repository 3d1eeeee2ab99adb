/**
 * (b) Streaming a 1 GiB file: GET /api/raw vs a bare node:http server piping fs.createReadStream.
 * Same client for both (undici request, body read to the end and counted); figure = median MiB/s of RUNS runs,
 * interleaved ours/anchor after one warm-up each.
 */
import { log } from './lib/log.ts';
import { startChildServer } from './lib/child-server.ts';
import { drain } from './lib/http-client.ts';
import type { Figure } from './lib/result.ts';
import { median, nowMs, sampleInterleaved } from './lib/stats.ts';
import { BIG_FILE_BYTES } from './prepare-corpus.ts';

const RUNS = 5;
const MiB = 1024 * 1024;

async function throughput(url: string, headers: Record<string, string>): Promise<number> {
  const start = nowMs();
  const { status, bytes } = await drain(url, headers);
  const seconds = (nowMs() - start) / 1000;
  if (status !== 200 || bytes !== BIG_FILE_BYTES) throw new Error(`GET ${url} → ${status}, ${bytes} bytes`);
  return bytes / MiB / seconds;
}

export async function benchRawStream(filesRoot: string, fileName: string, token: string): Promise<Figure> {
  const ours = await startChildServer('ours', 'ours', { BENCH_ROOT: filesRoot, BENCH_TOKEN: token });
  const bare = await startChildServer('anchor', 'bare', { BENCH_ROOT: filesRoot });
  try {
    const path = encodeURIComponent(fileName);
    const measureOurs = () => throughput(`${ours.baseUrl}/api/raw?path=${path}`, { authorization: `Bearer ${token}` });
    const measureAnchor = () => throughput(`${bare.baseUrl}/raw?path=${path}`, {});
    const { ours: oursSamples, anchor: anchorSamples } = await sampleInterleaved(RUNS, measureOurs, measureAnchor);
    const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
    log(`raw 1 GiB: ours [${fmt(oursSamples)}] MiB/s | anchor [${fmt(anchorSamples)}] MiB/s`);
    return {
      figure: 'raw stream 1 GiB',
      unit: 'MiB/s',
      ours: median(oursSamples),
      anchor: median(anchorSamples),
      higherIsBetter: true,
    };
  } finally {
    await Promise.all([ours.stop(), bare.stop()]);
  }
}
