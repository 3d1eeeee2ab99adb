/**
 * `npm run bench` — measures our daemon against an anchor in the same run and prints ours / anchor / ratio.
 * Not part of CI or tests. See bench/README.md for what each figure means.
 *
 *   node --import tsx bench/run.ts [search] [search-engine] [search-first] [raw] [file] [read-page] [tree] [copy] [changes] [terminal] [echo] [rpc] [git] [projects] [health-kernel] [panel] [startup] [edge]
 *   (default: all of them)
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { closeClient } from './lib/http-client.ts';
import { log } from './lib/log.ts';
import { bigFileName, smallFileName } from './lib/paths.ts';
import type { Figure } from './lib/result.ts';
import { prepareCorpus } from './prepare-corpus.ts';
import { benchChangeFeed } from './change-feed.bench.ts';
import { benchCopy } from './copy.bench.ts';
import { benchEdge } from './edge.bench.ts';
import { benchEcho } from './echo.bench.ts';
import { benchGit } from './git.bench.ts';
import { benchPanel } from './panel.bench.ts';
import { benchKernelHealth, benchProjects } from './projects.bench.ts';
import { benchRawStream } from './raw-stream.bench.ts';
import { benchReadFileRps } from './read-file-rps.bench.ts';
import { benchReadPage } from './read-page.bench.ts';
import { benchRpc } from './rpc.bench.ts';
import { benchSearch } from './search.bench.ts';
import { benchSearchEngine } from './search-engine.bench.ts';
import { benchStartup } from './startup.bench.ts';
import { benchFirstQuery } from './search-first-query.bench.ts';
import { benchTerminal } from './terminal.bench.ts';
import { benchTree } from './tree.bench.ts';

const selected = new Set(process.argv.slice(2));
const wants = (name: string) => selected.size === 0 || selected.has(name);

function versionOf(command: string, args: string[]): string {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  // First line, first two words: "ripgrep 13.0.0", "wrk debian/4.1.0-3+b2".
  const first = (result.stdout || result.stderr || '').split('\n')[0]?.trim() ?? '';
  return first.split(/\s+/).slice(0, 2).join(' ') || 'n/a';
}

function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  // Sub-millisecond latencies (echo, /ws round trips) need more than one decimal.
  return value >= 100 ? value.toFixed(0) : value >= 1 ? value.toFixed(1) : value.toFixed(3);
}

function printTable(figures: Figure[]): void {
  const rows = figures.map((f) => {
    const ratio = f.ours / f.anchor;
    return [
      f.figure,
      `${formatNumber(f.ours)} ${f.unit}`,
      `${formatNumber(f.anchor)} ${f.unit}`,
      `${ratio.toFixed(2)}x`,
      f.higherIsBetter ? 'higher' : 'lower',
      f.note ?? '',
    ];
  });
  const header = ['figure', 'ours', 'anchor', 'ratio ours/anchor', 'better', 'note'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i === 5 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ').trimEnd();
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const row of rows) console.log(line(row));
}

const started = Date.now();
const prepared = await prepareCorpus();
log(
  `node ${process.version}, ${availableParallelism()} CPUs, ${versionOf('rg', ['--version'])}, ` +
    `${prepared.haveWrk ? versionOf('wrk', ['-v']) : 'wrk not installed'}`,
);
const token = randomBytes(24).toString('base64url');
const figures: Figure[] = [];
const benchStarted = Date.now();
try {
  if (wants('search')) {
    log('(a) search: /api/files/search vs rg --files | grep -iF (kernel tree)');
    figures.push(...(await benchSearch(prepared.linuxTree, token)));
  }
  if (wants('search-engine')) {
    log('(k) search engine: /workspace/search vs rg -l (kernel tree): cold scan, indexed queries, @ search, index build, memory, disk, freshness');
    figures.push(...(await benchSearchEngine(prepared.linuxTree, token)));
  }
  if (wants('search-engine') || wants('search-first')) {
    log('(k) search first query after start: /workspace/search and /ws search_in_files on a just-started daemon vs rg -n');
    figures.push(...(await benchFirstQuery(prepared.linuxTree, token)));
  }
  if (wants('raw')) {
    log('(b) raw: /api/raw and /workspace/media vs node:http + fs.createReadStream (1 GiB)');
    figures.push(...(await benchRawStream(prepared.filesRoot, bigFileName, token)));
  }
  if (wants('file')) {
    log('(c) read-file: /api/file vs bare node:http JSON handler (4 KiB)');
    figures.push(await benchReadFileRps(prepared.filesRoot, smallFileName, token));
  }
  if (wants('read-page')) {
    log('(e) read-page: /workspace-files/read of the last page, 1 GiB log vs 64 MiB log (time, server peak RSS)');
    figures.push(...(await benchReadPage(token)));
  }
  if (wants('tree')) {
    log('(tree) tree: /workspace/tree (5000-entry budget) vs find | head -n 5000 (kernel tree, .gitignore honoured)');
    figures.push(...(await benchTree(prepared.linuxTree, token)));
  }
  if (wants('copy')) {
    log('(copy) copy: NodeFileSystem.copy of a 10,101-entry folder vs cp -a');
    figures.push(await benchCopy());
  }
  if (wants('changes')) {
    log('(f) changes: shell write → /workspace-files/changes SSE event vs the @parcel/watcher callback alone');
    figures.push(...(await benchChangeFeed(token)));
  }
  if (wants('terminal')) {
    log('(d) terminal: /ws/terminal, /terminals/{name}, /ws pty-output vs raw node-pty (sh printing a lot; MiB/s, peak RSS)');
    figures.push(...(await benchTerminal(prepared.filesRoot, token)));
  }
  if (wants('echo')) {
    log('(g) echo: keystroke → echo through /ws/terminal, /terminals/{name}, /ws pty_write vs raw node-pty (p50/p99)');
    figures.push(...(await benchEcho(prepared.filesRoot, token)));
  }
  if (wants('rpc')) {
    log('(h) rpc: /ws file_exists and read_file (4 KiB) vs GET /workspace-files/stat and /api/file on the same server');
    figures.push(...(await benchRpc(prepared.filesRoot, smallFileName, token)));
  }
  if (wants('projects')) {
    log('(projects) project calls: setup, graph, health on a generated 520-package monorepo, cold and warm');
    figures.push(...(await benchProjects(token)));
  }
  if (wants('projects') || wants('health-kernel')) {
    log('(health-kernel) health on the kernel repo: cold (every file parsed once) and warm');
    figures.push(...(await benchKernelHealth(prepared.linuxTree, token)));
  }
  if (wants('git')) {
    log('(git) git: /ws get_git_status, git_log 50, get_git_diff (1 MiB) vs the git command run directly (kernel repo)');
    figures.push(...(await benchGit(prepared.linuxTree, token)));
  }
  if (wants('panel')) {
    log('(panel) the web panel\'s first load in headless Chromium: ours vs bare node:http serving the same files; budget 1 s, 1 MiB JS gzipped');
    figures.push(...(await benchPanel(token)));
  }
  if (wants('startup')) {
    log('(startup) start to `listening on` for an empty folder: the built bin vs the CLI from source through tsx, and bare node:http');
    figures.push(...(await benchStartup()));
  }
  if (wants('edge')) {
    log('(edge) a workspace in workerd (Durable Object, SQLite) vs the Node daemon on disk: file rps/p99, tree, search on 10 000 files, a 50 MiB file');
    figures.push(...(await benchEdge(token)));
  }
} finally {
  await closeClient();
}

console.log('');
printTable(figures);
console.log('');
console.log('ratio = ours / anchor; "better" says which direction is good for that figure.');
if (wants('search')) {
  console.log(
    'search: median of 7 runs after 1 warm-up, limit=500. [default cap] = seed rule, the walk stops after 50 000' +
      ' directory entries, so on the ~84k-entry kernel tree it searches only part of it; [no cap] = maxSearchEntries' +
      ' lifted (like-for-like with rg). q="" : ours returns the first 500 files in walk order and stops, so the' +
      ' anchor is `rg --files | head -n 500`.',
  );
}
console.log(
  `bench ${((Date.now() - benchStarted) / 1000).toFixed(0)} s (total with preparation ${((Date.now() - started) / 1000).toFixed(0)} s)`,
);
