/**
 * (tree) GET /workspace/tree with the seed's 5000-entry budget on the Linux kernel tree, vs `find` with the
 * same budget.
 *
 * The corpus is a hard-link copy of the kernel tree (.bench-cache/linux-tree, `cp -al`) whose top-level
 * .gitignore lacks Debian's `/*` and `!/debian/` lines, which would otherwise hide every top-level entry once
 * .gitignore is honoured; every other .gitignore (300-odd of them) stays and is applied.
 *
 * Ours: the daemon in its own process (bench/servers/ours.ts), one request, the JSON body read and parsed by the
 * client; it walks breadth-first, reads every .gitignore on the way, stats every listed file for its size and
 * follows links. Anchors, each spawn to exit with all output read:
 *   - `find DIR -mindepth 1 | head -n 5000`: depth-first, names only (readdir, no stat: the cheapest listing);
 *   - `find DIR -mindepth 1 -printf '%y %s %P\n' | head -n 5000`: the same with each entry's type and size,
 *     an lstat per entry as ours does (reported as a second row).
 * Medians of interleaved runs (bench/lib/stats.ts sampleInterleaved) after a few warm-up requests, warm page cache.
 * So the figure is the steady state of a client asking again: the parsed .gitignore matchers, and the answers
 * they remember, are reused while the files are unchanged (core/ignore/parsed-rules-cache.ts). The server's
 * first request, which parses them and tests every path afresh, is printed on its own (`first`).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startChildServer } from './lib/child-server.ts';
import { getJson } from './lib/http-client.ts';
import { log } from './lib/log.ts';
import { cacheDir } from './lib/paths.ts';
import type { Figure } from './lib/result.ts';
import { median, nowMs, sampleInterleaved } from './lib/stats.ts';

const RUNS = 11;
/** Extra requests before sampling, so the server's JIT has settled (sampleInterleaved adds one more each). */
const SERVER_WARMUPS = 3;
const BUDGET = 5000; // limits.maxTreeEntries' default (docs/intentic.md#tree)
/** The lines of Debian's top-level .gitignore that hide the whole tree from a gitignore-aware walk. */
const HIDING_LINES = new Set(['/*', '!/debian/']);

interface Entry {
  children?: Entry[];
}
interface TreeBody {
  root: string;
  tree: Entry[];
  hidden: number;
}

/** The bench copy of the kernel tree (hard links, a rewritten top .gitignore); made once, then reused. */
export async function prepareTreeCorpus(linuxTree: string): Promise<string> {
  const copy = join(cacheDir, 'linux-tree');
  const gitignore = join(copy, '.gitignore');
  if (!existsSync(copy)) {
    log(`tree: hard-link copy of ${linuxTree} → ${copy}`);
    const cp = spawnSync('cp', ['-al', linuxTree, copy], { stdio: 'inherit' });
    if (cp.status !== 0) throw new Error(`cp -al exited ${cp.status}`);
  }
  const text = await readFile(gitignore, 'utf8');
  const lines = text.split('\n');
  if (lines.some((line) => HIDING_LINES.has(line.trim()))) {
    // The copy's .gitignore is a hard link to the original: unlink it before writing, never write through it.
    await rm(gitignore);
    await writeFile(gitignore, lines.filter((line) => !HIDING_LINES.has(line.trim())).join('\n'));
  }
  return copy;
}

function countEntries(entries: readonly Entry[]): number {
  let n = 0;
  for (const entry of entries) n += 1 + (entry.children ? countEntries(entry.children) : 0);
  return n;
}

/** Runs `find … | head -n BUDGET` in `dir`; resolves with the number of lines it printed. */
function findHead(dir: string, printf: boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const listing = printf ? `find . -mindepth 1 -printf '%y %s %P\\n'` : 'find . -mindepth 1';
    const child = spawn('sh', ['-c', `${listing} | head -n ${BUDGET}`], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
    let lines = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(lines) : reject(new Error(`find | head exited ${code}`))));
  });
}

export async function benchTree(linuxTree: string, token: string): Promise<Figure[]> {
  const corpus = await prepareTreeCorpus(linuxTree);
  const ours = await startChildServer('ours', 'ours', { BENCH_ROOT: corpus, BENCH_TOKEN: token });
  try {
    const url = `${ours.baseUrl}/workspace/tree`;
    const headers = { 'x-intentic-control': token };
    let listed = 0;
    let body: TreeBody | undefined;
    const measureOurs = async () => {
      const start = nowMs();
      body = await getJson<TreeBody>(url, headers);
      const ms = nowMs() - start;
      listed = countEntries(body.tree);
      return ms;
    };
    const first = await measureOurs();
    for (let i = 1; i < SERVER_WARMUPS; i++) await measureOurs();
    let anchorLines = 0;
    const figures: Figure[] = [];
    for (const printf of [false, true]) {
      const measureAnchor = async () => {
        const start = nowMs();
        anchorLines = await findHead(corpus, printf);
        return nowMs() - start;
      };
      const samples = await sampleInterleaved(RUNS, measureOurs, measureAnchor);
      if (listed > BUDGET || anchorLines !== BUDGET) throw new Error(`tree: ours listed ${listed}, find printed ${anchorLines}`);
      const anchorName = printf ? "find -printf '%y %s %P' | head" : 'find | head';
      const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(', ');
      log(
        `tree: ours first ${first.toFixed(0)} ms, then [${fmt(samples.ours)}] ms (${listed} entries, hidden ${body!.hidden}, ${body!.tree.length} at the top)` +
          ` | ${anchorName} [${fmt(samples.anchor)}] ms (${anchorLines} lines)`,
      );
      figures.push({
        figure: `tree 5000 entries vs ${anchorName}`,
        unit: 'ms',
        ours: median(samples.ours),
        anchor: median(samples.anchor),
        higherIsBetter: false,
        note: `${listed} entries listed, .gitignore honoured; first request ${first.toFixed(0)} ms`,
      });
    }
    return figures;
  } finally {
    await ours.stop();
  }
}
