/**
 * (c) GET /api/file of a 4 KiB text file: requests per second vs a bare node:http handler that reads the same file
 * and answers JSON {path, content}. Each server runs in its own process; the load generator (wrk -t2 -c32 -d5s,
 * or the in-process fallback) is the same for both. Ours gets its token as a header, as a real client sends it.
 * RUNS runs each, interleaved ours/anchor after a warm-up each; the figure is the median, the note the spread.
 */
import { log } from './lib/log.ts';
import { startChildServer } from './lib/child-server.ts';
import { loadGeneratorName, runLoad } from './lib/load.ts';
import type { Figure } from './lib/result.ts';
import { median, sampleInterleaved } from './lib/stats.ts';

const RUNS = 5;
const THREADS = 2;
const CONNECTIONS = 32;
const SECONDS = 5;
const WARMUP_SECONDS = 1;

export async function benchReadFileRps(filesRoot: string, fileName: string, token: string): Promise<Figure> {
  const ours = await startChildServer('ours', 'ours', { BENCH_ROOT: filesRoot, BENCH_TOKEN: token });
  const bare = await startChildServer('anchor', 'bare', { BENCH_ROOT: filesRoot });
  const generator = loadGeneratorName();
  try {
    const path = encodeURIComponent(fileName);
    const measure = async (url: string, headers: Record<string, string>, seconds: number) => {
      const result = await runLoad({ url, headers, connections: CONNECTIONS, seconds, threads: THREADS });
      if (result.errors > 0) throw new Error(`${url}: ${result.errors} non-2xx responses`);
      return result.rps;
    };
    const oursUrl = `${ours.baseUrl}/api/file?path=${path}`;
    const oursHeaders = { Authorization: `Bearer ${token}` };
    const anchorUrl = `${bare.baseUrl}/file?path=${path}`;
    // Each side's first call (sampleInterleaved's warm-up) is a short one.
    const warm = { ours: false, anchor: false };
    const samples = await sampleInterleaved(
      RUNS,
      () => measure(oursUrl, oursHeaders, warm.ours ? SECONDS : ((warm.ours = true), WARMUP_SECONDS)),
      () => measure(anchorUrl, {}, warm.anchor ? SECONDS : ((warm.anchor = true), WARMUP_SECONDS)),
    );
    const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
    log(`read-file rps (${generator}, ${CONNECTIONS} connections, ${SECONDS} s): ours [${fmt(samples.ours)}] | anchor [${fmt(samples.anchor)}]`);
    const ratios = samples.ours.map((x, i) => x / samples.anchor[i]!);
    return {
      figure: 'GET /api/file 4 KiB',
      unit: 'req/s',
      ours: median(samples.ours),
      anchor: median(samples.anchor),
      higherIsBetter: true,
      note: `${generator} -t${THREADS} -c${CONNECTIONS} -d${SECONDS}s, median of ${RUNS} interleaved; per-pair ratios ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}x`,
    };
  } finally {
    await Promise.all([ours.stop(), bare.stop()]);
  }
}
