/**
 * (c) GET /api/file of a 4 KiB text file: requests per second vs a bare node:http handler that reads the same file
 * and answers JSON {path, content}. Each server runs in its own process; the load generator (wrk -t1 -c32 -d5s,
 * or the in-process fallback) is the same for both. Ours gets its token as a header, as a real client sends it.
 */
import { log } from './lib/log.ts';
import { startChildServer } from './lib/child-server.ts';
import { loadGeneratorName, runLoad } from './lib/load.ts';
import type { Figure } from './lib/result.ts';

const CONNECTIONS = 32;
const SECONDS = 5;
const WARMUP_SECONDS = 1;

export async function benchReadFileRps(filesRoot: string, fileName: string, token: string): Promise<Figure> {
  const ours = await startChildServer('ours', 'ours', { BENCH_ROOT: filesRoot, BENCH_TOKEN: token });
  const bare = await startChildServer('anchor', 'bare', { BENCH_ROOT: filesRoot });
  const generator = loadGeneratorName();
  try {
    const path = encodeURIComponent(fileName);
    const measure = async (url: string, headers: Record<string, string>) => {
      await runLoad({ url, headers, connections: CONNECTIONS, seconds: WARMUP_SECONDS });
      const result = await runLoad({ url, headers, connections: CONNECTIONS, seconds: SECONDS });
      if (result.errors > 0) throw new Error(`${url}: ${result.errors} non-2xx responses`);
      return result;
    };
    const oursResult = await measure(`${ours.baseUrl}/api/file?path=${path}`, { Authorization: `Bearer ${token}` });
    const anchorResult = await measure(`${bare.baseUrl}/file?path=${path}`, {});
    log(
      `read-file rps (${generator}, ${CONNECTIONS} connections, ${SECONDS} s): ours ${oursResult.rps.toFixed(0)}` +
        ` | anchor ${anchorResult.rps.toFixed(0)}`,
    );
    return {
      figure: 'GET /api/file 4 KiB',
      unit: 'req/s',
      ours: oursResult.rps,
      anchor: anchorResult.rps,
      higherIsBetter: true,
      note: `load generator: ${generator} -t1 -c${CONNECTIONS} -d${SECONDS}s`,
    };
  } finally {
    await Promise.all([ours.stop(), bare.stop()]);
  }
}
