/**
 * core/search/prose in this process over a sample of the Linux kernel tree: what the BM25 index costs (build
 * time, heap per document, with and without the documents' text) and what a prose query costs, against
 * `rg -l -i -e WORD …` over the same files (the naive way to find the files holding any of a query's words; it
 * neither ranks nor picks lines, so it is an anchor for speed, not for what is found).
 *
 *   node --expose-gc --import tsx bench/search-prose.bench.ts [tree] [code-files]
 *
 * The sample: every Documentation/**\/*.rst|txt, then the first `code-files` (default 5 000) `*.c` files in path
 * order. Heap figures are `heapUsed` after a full GC (needs --expose-gc) minus the same with the texts already
 * read; `approxBytes` is the index's own estimate, its ratio to the measured heap the calibration check. Rows:
 * median of 7 runs after 1 warm-up; the query rows interleave ours and rg.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MAX_SEARCHED_FILE_BYTES } from '../core/search/answer.ts';
import { createProseIndex, type ProseDoc, type ProseIndex } from '../core/search/prose/prose-index.ts';
import { queryTerms } from '../core/search/prose/tokens.ts';
import { median, nowMs, sampleInterleaved } from './lib/stats.ts';

const RUNS = 7;
const QUERIES = ['how are interrupt domains allocated', 'memory barrier ordering on weakly ordered cpus', 'usb device reset'];

const tree = resolve(process.argv[2] ?? '/work/corpus/linux-source-6.1');
const codeFiles = Number(process.argv[3] ?? 5000);
const gc = (globalThis as { gc?: () => void }).gc;

function walk(dir: string, keep: (path: string) => boolean, out: string[], prefix = ''): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) walk(join(dir, entry.name), keep, out, path);
    else if (entry.isFile() && keep(path)) out.push(path);
  }
  return out;
}

function heapUsed(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

function rgFiles(query: string, files: string[]): Promise<number> {
  const args = ['-l', '-i', ...queryTerms(query).flatMap((term) => ['-e', term]), '--', ...files];
  return new Promise((resolvePromise, reject) => {
    const child = spawn('rg', args, { cwd: tree, stdio: ['ignore', 'pipe', 'inherit'] });
    let lines = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      for (const byte of chunk) if (byte === 10) lines++;
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 || code === 1 ? resolvePromise(lines) : reject(new Error(`rg exited ${code}`))));
  });
}

const paths = [
  ...walk(join(tree, 'Documentation'), (p) => /\.(rst|txt)$/.test(p), [], 'Documentation'),
  ...walk(tree, (p) => p.endsWith('.c') && !p.startsWith('Documentation/'), []).slice(0, codeFiles),
].filter((path) => statSync(join(tree, path)).size <= MAX_SEARCHED_FILE_BYTES);
// Bytes, off the JS heap, decoded as each document is added: the heap then holds a text only if the index does.
const files = paths.map((path) => ({ path, bytes: readFileSync(join(tree, path)) }));
const decoder = new TextDecoder();
const docOf = (file: { path: string; bytes: Uint8Array }, version = '1'): ProseDoc => ({ path: file.path, version, text: decoder.decode(file.bytes) });
const corpusBytes = files.reduce((sum, file) => sum + file.bytes.byteLength, 0);
console.log(`tree ${tree}: ${files.length} files, ${(corpusBytes / 1048576).toFixed(1)} MiB${gc ? '' : ' (no --expose-gc: heap figures are rough)'}`);

function build(keepText: boolean): { index: ProseIndex; ms: number; heap: number } {
  const before = heapUsed();
  const started = nowMs();
  const index = createProseIndex({ maxTextBytes: keepText ? Infinity : 0, maxBytes: Infinity, maxDocs: Infinity });
  for (const file of files) index.add(docOf(file));
  const ms = nowMs() - started;
  return { index, ms, heap: heapUsed() - before };
}

const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;
let withText: ProseIndex | undefined;
for (const keepText of [false, true]) {
  const { index, ms, heap } = build(keepText);
  const stats = index.stats();
  console.log(
    `${keepText ? 'with texts' : 'no texts'}: build ${(ms / 1000).toFixed(2)} s (${(corpusBytes / 1048576 / (ms / 1000)).toFixed(1)} MiB/s); ` +
      `heap ${mib(heap)} = ${(heap / stats.docs / 1024).toFixed(1)} KiB/doc; approxBytes ${mib(stats.approxBytes)} ` +
      `(${(stats.approxBytes / heap).toFixed(2)}× measured); ${stats.terms} terms, ${stats.tokens} tokens`,
  );
  if (keepText) withText = index;
}
const index = withText!;

// Incremental: re-adding a document (a changed file) and removing one.
const churn = files.slice(0, 2000);
const readd = nowMs();
for (const file of churn) index.add(docOf(file, '2'));
console.log(`update (re-add) ${((nowMs() - readd) / churn.length).toFixed(3)} ms/doc over ${churn.length} docs`);

for (const query of QUERIES) {
  let ours = 0;
  let anchor = 0;
  const samples = await sampleInterleaved(
    RUNS,
    async () => {
      const started = nowMs();
      ours = index.search(query, { limit: 300 }).length;
      return nowMs() - started;
    },
    async () => {
      const started = nowMs();
      anchor = await rgFiles(query, paths);
      return nowMs() - started;
    },
  );
  const o = median(samples.ours);
  const a = median(samples.anchor);
  console.log(`q "${query}": ours ${o.toFixed(1)} ms (${ours} files, top 300 with lines) | rg -l -i ${a.toFixed(1)} ms (${anchor} files) | ${(o / a).toFixed(2)}×`);
}
