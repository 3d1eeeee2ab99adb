/**
 * core/content-search `searchInFiles` (the engine behind `/ws search_in_files`) in this process, over a real tree
 * (default: the kernel's drivers/net from `.bench-cache/linux`, ≈ 5.7k files, 136 MB). No server and no
 * anchor: this figure compares the engine with itself, e.g. literal queries (an escaped JS RegExp) against
 * regex queries (re2js, linear time), or one version of the engine against another.
 *
 *   node --import tsx bench/content-search.bench.ts [tree] [engine-module]
 *
 * `engine-module` (default core/content-search/search-in-files.ts) is any module exporting the same
 * `searchInFiles`, so a copy of an older engine can be measured on the same machine in the same way.
 * Each row: median wall-clock ms of 7 runs after 1 warm-up, and the match count (the cap is the real 500;
 * the `uncapped` rows lift it to measure reporting many matches).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { NodeFileSystem } from '../adapters/fs/node-file-system.ts';
import type { searchInFiles as SearchInFiles, SearchInFilesOptions } from '../core/content-search/search-in-files.ts';
import { median, nowMs, sample } from './lib/stats.ts';

const RUNS = 7;

const CASES: { name: string; options: Omit<SearchInFilesOptions, 'timeBudgetMs'> }[] = [
  { name: 'literal, no hit', options: { query: 'zqxjnotfound' } },
  { name: 'literal, many hits (cap 500)', options: { query: 'skb' } },
  { name: 'literal, many hits (uncapped)', options: { query: 'skb', maxMatches: Infinity } },
  { name: 'regex, no hit', options: { query: 'zqxj[0-9]+notfound', regex: true } },
  { name: 'regex, many hits (cap 500)', options: { query: 'skb_[a-z]+', regex: true } },
  { name: 'regex, many hits (uncapped)', options: { query: 'skb_[a-z]+', regex: true, maxMatches: Infinity } },
  { name: 'regex, whole word, many hits (uncapped)', options: { query: 'skb_[a-z]+', regex: true, wholeWord: true, maxMatches: Infinity } },
];

const tree = resolve(process.argv[2] ?? '.bench-cache/linux/drivers/net');
const engineModule = resolve(process.argv[3] ?? 'core/content-search/search-in-files.ts');
const { searchInFiles } = (await import(pathToFileURL(engineModule).href)) as { searchInFiles: typeof SearchInFiles };
const fs = new NodeFileSystem();

console.log(`engine ${engineModule}\ntree ${tree}`);
for (const { name, options } of CASES) {
  let count = 0;
  const samples = await sample(RUNS, async () => {
    const started = nowMs();
    count = (await searchInFiles(fs, tree, { ...options, timeBudgetMs: 600_000 })).length;
    return nowMs() - started;
  });
  console.log(`${name.padEnd(42)} ${median(samples).toFixed(1).padStart(8)} ms  ${String(count).padStart(6)} matches`);
}
