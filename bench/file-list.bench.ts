/**
 * (file-list) The live file list (core/search/file-list) on the Linux kernel tree:
 *   - first walk: createFileList → `ready` (readdir + an lstat per file + every .gitignore applied), vs
 *     `find DIR -printf '%y %s\n'` (a readdir and an lstat per entry, names and sizes only) in the same run;
 *   - the list's heap: `heapUsed` after a forced GC with the first list held, minus before it was made (the
 *     ignore rules' parsed matchers and their answer caches included);
 *   - the `@` search: ranking every listed path with the `files` scorer for 6-character queries (p50 over
 *     interleaved runs of several queries, each query distinct, tables warm as they are between keystrokes),
 *     vs the same ranking without the prefilter (scoring all 78 579 paths), and ori's `findFiles` over the
 *     list vs over the disk (the walk `/api/files/search` did per keystroke before).
 * The results are checked: the prefiltered ranking must equal the unfiltered one, and findFiles over the list
 * the disk walk's answer; a difference fails the run.
 *
 *   node --expose-gc --import tsx bench/file-list.bench.ts [corpus]   (default /work/corpus/linux-source-6.1)
 */
import { spawn } from 'node:child_process';
import { NodeFileSystem } from '../adapters/fs/node-file-system.ts';
import { createChangeFeed } from '../core/changes/create-change-feed.ts';
import { createFileList } from '../core/search/file-list/create-file-list.ts';
import { fuzzyPathScore } from '../core/search/paths/fuzzy-path-score.ts';
import { compareRanked, rankFuzzyPaths, type RankedPath } from '../core/search/paths/rank-fuzzy-paths.ts';
import { findFiles } from '../core/file-search/find-files.ts';
import { log } from './lib/log.ts';
import type { Figure } from './lib/result.ts';
import { median, nowMs } from './lib/stats.ts';

const QUERIES = ['irqdom', 'drvnet', 'kernel', 'Kconfi', 'mm/pag', 'xfsbuf', 'usbhid', 'zzzzzz'];
const RUNS = 15;

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function findPrintf(dir: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = nowMs();
    const child = spawn('find', [dir, '-mindepth', '1', '-printf', '%y %s\n'], { stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.on('data', () => {});
    child.on('error', reject);
    child.on('close', () => resolve(nowMs() - start));
  });
}

function unfiltered(query: string, items: readonly { path: string }[]): RankedPath[] {
  const out: RankedPath[] = [];
  for (const { path } of items) {
    const score = fuzzyPathScore(query, path);
    if (score !== undefined) out.push({ path, score });
  }
  return out.sort(compareRanked);
}

export async function benchFileList(corpus: string): Promise<Figure[]> {
  const fs = new NodeFileSystem();
  const figures: Figure[] = [];

  // First walk, interleaved with the find anchor; the last list is kept for the rest.
  const walks: number[] = [];
  const finds: number[] = [];
  let heapMiB = 0;
  let kept: { list: ReturnType<typeof createFileList>; feed: ReturnType<typeof createChangeFeed> } | undefined;
  for (let run = 0; run < 3; run++) {
    finds.push(await findPrintf(corpus));
    kept?.list.close();
    await kept?.feed.close();
    kept = undefined;
    gc();
    const before = process.memoryUsage().heapUsed;
    const feed = createChangeFeed();
    const start = nowMs();
    const list = createFileList({ fs, root: corpus, changes: feed });
    await list.ready;
    walks.push(nowMs() - start);
    gc();
    // The first list only: later ones reuse what the first left cached (the parsed .gitignore matchers).
    if (run === 0) heapMiB = (process.memoryUsage().heapUsed - before) / 2 ** 20;
    kept = { list, feed };
  }
  const { list, feed } = kept!;
  const all = list.files({ includeIgnored: true });
  const searched = list.files({ includeIgnored: false });
  log(`file-list: ${all.length} files (${searched.length} not ignored); walks ${walks.map((ms) => ms.toFixed(0)).join(' ')} ms`);
  figures.push({ figure: 'file list: first walk (kernel)', unit: 'ms', ours: median(walks), anchor: median(finds), higherIsBetter: false, note: 'anchor: find -printf %y %s' });
  figures.push({ figure: 'file list: heap with the list', unit: 'MiB', ours: heapMiB, anchor: Number.NaN, higherIsBetter: false });

  // The `@` ranking: prefiltered vs every path scored; first the answers must agree.
  for (const query of QUERIES) {
    const ours = rankFuzzyPaths(query, searched);
    const plain = unfiltered(query, searched);
    if (JSON.stringify(ours) !== JSON.stringify(plain)) throw new Error(`file-list: ranking of "${query}" differs from the unfiltered one`);
  }
  const ranked: number[] = [];
  const plainTimes: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    for (const query of QUERIES) {
      let start = nowMs();
      rankFuzzyPaths(query, searched);
      ranked.push(nowMs() - start);
      start = nowMs();
      unfiltered(query, searched);
      plainTimes.push(nowMs() - start);
    }
  }
  figures.push({ figure: '@ files ranking, 6 chars (p50)', unit: 'ms', ours: median(ranked), anchor: median(plainTimes), higherIsBetter: false, note: 'anchor: every path scored, no prefilter' });

  // ori's search: over the list vs over the disk.
  const disk: number[] = [];
  const fromList: number[] = [];
  const root = corpus;
  for (let run = 0; run < 5; run++) {
    for (const query of ['irq_domain', 'kconfig']) {
      const options = { query, limit: 50, maxEntries: 50_000 };
      let start = nowMs();
      const a = await findFiles(fs, root, { ...options, list });
      fromList.push(nowMs() - start);
      start = nowMs();
      const b = await findFiles(fs, root, options);
      disk.push(nowMs() - start);
      if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`file-list: /api/files/search "${query}" differs between list and disk`);
    }
  }
  figures.push({ figure: '/api/files/search over the list (p50)', unit: 'ms', ours: median(fromList), anchor: median(disk), higherIsBetter: false, note: 'anchor: the disk walk' });

  list.close();
  await feed.close();
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const corpus = process.argv[2] ?? '/work/corpus/linux-source-6.1';
  for (const figure of await benchFileList(corpus)) {
    const ratio = Number.isFinite(figure.anchor) ? (figure.ours / figure.anchor).toFixed(2) : '-';
    console.log(`${figure.figure.padEnd(40)} ours ${figure.ours.toFixed(2).padStart(9)} ${figure.unit}  anchor ${figure.anchor.toFixed(2).padStart(9)}  ratio ${ratio}  ${figure.note ?? ''}`);
  }
}
