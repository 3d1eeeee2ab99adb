/**
 * (a) GET /api/files/search on the Linux kernel tree vs `rg --files | grep -iF QUERY`.
 *
 * Both sides produce the paths matching a case-insensitive substring: rg lists every file (--no-ignore --hidden,
 * since our walk does not honour .gitignore either) and grep filters them; ours walks, filters, ranks and answers
 * the top 500 as JSON over HTTP. For the empty query ours answers the first 500 files in walk order and stops
 * walking, so the anchor gets `| head -n 500` (rg stops on SIGPIPE) to do the same amount of work. The figure is median wall-clock latency (client-side, body fully read; for the
 * anchor, spawn to exit with all output read).
 *
 * Our walk stops after limits.maxSearchEntries (seed rule: 50 000) directory entries and the kernel has ~80k files,
 * so the default-capped server searches only part of the tree. A second server runs with the cap lifted
 * (maxSearchEntries: Infinity) for the like-for-like figure; both are reported.
 */
import { spawn } from 'node:child_process';
import { log } from './lib/log.ts';
import { startChildServer, type ChildServer } from './lib/child-server.ts';
import { getJson } from './lib/http-client.ts';
import type { Figure } from './lib/result.ts';
import { median, nowMs, sample } from './lib/stats.ts';

export const SEARCH_QUERIES = ['sched', 'Kconfig', 'x', ''];
const RUNS = 7;
const LIMIT = 500; // the seed's cap: the most hits one request can ask for

interface SearchHit {
  name: string;
  path: string;
  relPath: string;
}

/** The anchor: rg lists the tree, grep keeps the case-insensitive substring matches. Returns the match count. */
function rgFilesFilter(tree: string, query: string): Promise<number> {
  return new Promise((resolve, reject) => {
    // An empty query is "the first LIMIT files" for us (the walk stops there), so the anchor stops there too.
    const pipeline = `rg --files --no-ignore --hidden | grep -iF -e "$Q"${query === '' ? ` | head -n ${LIMIT}` : ''}`;
    const child = spawn('sh', ['-c', pipeline], {
      cwd: tree,
      env: { ...process.env, Q: query },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let lines = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
    });
    child.on('error', reject);
    // grep exits 1 when nothing matches: still a valid run.
    child.on('exit', (code) => (code === 0 || code === 1 ? resolve(lines) : reject(new Error(`rg|grep exited ${code}`))));
  });
}

/**
 * Untimed: every path rg lists for `query` (to check that our hits are real matches). `-L` because we list links
 * to files under the link's path (rg skips links by default; the timed anchor does, a few dozen files on the
 * kernel tree); it also enters linked folders, which only makes this superset larger.
 */
function rgMatchingPaths(tree: string, query: string): Promise<Set<string>> {
  return new Promise((resolve, reject) => {
    const child = spawn('rg', ['--files', '--no-ignore', '--hidden', '-L'], { cwd: tree, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('exit', () => {
      const needle = query.toLowerCase();
      resolve(new Set(out.split('\n').filter((line) => line !== '' && line.toLowerCase().includes(needle))));
    });
  });
}

function searchUrl(server: ChildServer, query: string): string {
  return `${server.baseUrl}/api/files/search?q=${encodeURIComponent(query)}&limit=${LIMIT}`;
}

export async function benchSearch(tree: string, token: string): Promise<Figure[]> {
  const auth = { authorization: `Bearer ${token}` };
  const capped = await startChildServer('ours (cap 50k)', 'ours', { BENCH_ROOT: tree, BENCH_TOKEN: token });
  const uncapped = await startChildServer('ours (no cap)', 'ours', {
    BENCH_ROOT: tree,
    BENCH_TOKEN: token,
    BENCH_MAX_SEARCH_ENTRIES: 'Infinity',
  });
  log(`search: servers via ${capped.via}; ${RUNS} runs after 1 warm-up per query`);
  const figures: Figure[] = [];
  try {
    for (const query of SEARCH_QUERIES) {
      const label = JSON.stringify(query);
      let anchorMatches = 0;
      const anchorMs = median(
        await sample(RUNS, async () => {
          const start = nowMs();
          anchorMatches = await rgFilesFilter(tree, query);
          return nowMs() - start;
        }),
      );
      for (const server of [uncapped, capped]) {
        let hits: SearchHit[] = [];
        const oursMs = median(
          await sample(RUNS, async () => {
            const start = nowMs();
            hits = (await getJson<{ files: SearchHit[] }>(searchUrl(server, query), auth)).files;
            return nowMs() - start;
          }),
        );
        const expected = await rgMatchingPaths(tree, query);
        const strays = hits.filter((hit) => !expected.has(hit.relPath));
        if (strays.length > 0) throw new Error(`search q=${label}: ${strays.length} hits rg does not list, e.g. ${strays[0]!.relPath}`);
        const capNote = server === capped ? ', walk capped at 50k entries (partial tree)' : ', cap lifted';
        log(
          `search q=${label} ${server.name}: ${oursMs.toFixed(1)} ms (${hits.length} hits returned)` +
            ` | rg: ${anchorMs.toFixed(1)} ms (${anchorMatches} matches)`,
        );
        figures.push({
          figure: `search q=${label} ${server === capped ? '[default cap]' : '[no cap]'}`,
          unit: 'ms',
          ours: oursMs,
          anchor: anchorMs,
          higherIsBetter: false,
          note: `${hits.length}/${Math.min(anchorMatches, LIMIT)} hits${capNote}`,
        });
      }
    }
  } finally {
    await Promise.all([capped.stop(), uncapped.stop()]);
  }
  return figures;
}
