/**
 * (k) The first search after start: a daemon started on the kernel tree with a fresh, empty index folder is asked
 * `GET /workspace/search?mode=find` the moment it listens (its file list and index are still being built), vs
 * ripgrep, in the same run, interleaved:
 *
 *   node --import tsx bench/search-first-query.bench.ts [tree]     (default .bench-cache/linux)
 *   npm run bench -- search-first                                    (also part of `search-engine`)
 *
 * - Ours: a server child per run (bench/servers/ours.ts with BENCH_READY_AT=listening: the port is printed once
 *   the server listens, before the OS watcher has crawled the tree), timed from sending the query to the first
 *   page's parsed body. The rest of the pages are then fetched untimed, for the check below. The server is
 *   stopped and its index folder removed after each run.
 * - `/ws` `search_in_files` the same way (a second row): the protocol's own walk, asked over a socket opened the
 *   moment the server listens (the socket's upgrade is outside the clock).
 * - The anchor: `rg -n -i --hidden --max-filesize 1M -F -e QUERY` in the tree (the search-engine rows' flags, with
 *   `-n` for lines), spawn to exit with all output read. One untimed rg first warms the page cache.
 * - Checked every run: our file set (all pages) equals rg's, and `total` equals rg's line count (no group is
 *   capped at this query), else the bench fails. The freshness state our answer gave is in the note.
 * - Median of RUNS runs per side (ours, rg, ours, rg, …). A run of ours past the daemon's 10 s search budget (seen
 *   on a loaded machine) counts as Infinity and is named in the note.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildServer, type ChildServer } from './lib/child-server.ts';
import { getJson } from './lib/http-client.ts';
import { log } from './lib/log.ts';
import { linuxTree } from './lib/paths.ts';
import type { Figure } from './lib/result.ts';
import { RpcSocket } from './lib/rpc-socket.ts';
import { median, nowMs } from './lib/stats.ts';
import { fixKernelGitignore } from './search-engine.bench.ts';

const RUNS = 5;
const QUERY = 'irq_domain_alloc';

interface Answer {
  total: number;
  partial?: boolean;
  groups: { path: string }[];
  truncated: boolean;
  cursor?: string;
  freshness: { state: string; progress?: number };
}

interface Found {
  ms: number;
  files: Set<string>;
  lines: number;
  state?: string;
}

function rgLines(tree: string, query: string): Promise<Found> {
  return new Promise((resolve, reject) => {
    const started = nowMs();
    const child = spawn('rg', ['-n', '-i', '--hidden', '--max-filesize', '1M', '-F', '-e', query], { cwd: tree, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0 && code !== 1) return reject(new Error(`rg exited ${code}`));
      const ms = nowMs() - started;
      const lines = out.split('\n').filter(Boolean);
      const files = new Set(lines.map((line) => /^(.*?):\d+:/.exec(line)![1]!.replace(/^\.\//, '')));
      resolve({ ms, files, lines: lines.length });
    });
  });
}

async function startFresh(tree: string, token: string, indexDir: string): Promise<ChildServer> {
  return startChildServer('ours-first-query', 'ours', {
    BENCH_ROOT: tree,
    BENCH_TOKEN: token,
    BENCH_SEARCH: JSON.stringify({ persist: true, indexDir, eager: true }),
    BENCH_READY_AT: 'listening',
  });
}

/** `/workspace/search` the moment the server listens: time to the first page, then every page (untimed). */
async function ourFirstQuery(tree: string, token: string): Promise<Found> {
  const indexDir = await mkdtemp(join(tmpdir(), 'wsapi-bench-first-'));
  const server = await startFresh(tree, token, indexDir);
  try {
    const headers = { authorization: `Bearer ${token}` };
    const params = { query: QUERY, mode: 'find', literal: 'true', limit: '300' };
    const url = (extra: Record<string, string> = {}) => `${server.baseUrl}/workspace/search?${new URLSearchParams({ ...params, ...extra })}`;
    const started = nowMs();
    let answer: Answer;
    try {
      answer = await getJson<Answer>(url(), headers);
    } catch (error) {
      if (!String(error).includes('search took longer than')) throw error;
      return timedOut(nowMs() - started);
    }
    const ms = nowMs() - started;
    const state = answer.freshness.state;
    const files = new Set(answer.groups.map((group) => group.path));
    const total = answer.total;
    if (answer.partial) throw new Error(`first query: a group is capped, so total ${total} is a floor`);
    while (answer.truncated && answer.cursor !== undefined) {
      answer = await getJson<Answer>(url({ after: answer.cursor }), headers);
      for (const group of answer.groups) files.add(group.path);
    }
    return { ms, files, lines: total, state };
  } finally {
    await server.stop();
    await rm(indexDir, { recursive: true, force: true });
  }
}

/** `/ws` `search_in_files` over the whole root the moment the server listens. */
async function ourFirstRpcQuery(tree: string, token: string): Promise<Found> {
  const indexDir = await mkdtemp(join(tmpdir(), 'wsapi-bench-first-'));
  const server = await startFresh(tree, token, indexDir);
  try {
    const socket = await RpcSocket.connect(server.baseUrl, token);
    const started = nowMs();
    const reply = await socket.call('search_in_files', { path: tree, query: QUERY, caseSensitive: false, regex: false });
    const ms = nowMs() - started;
    await socket.close();
    if (!reply.ok && reply.error?.startsWith('Search timed out')) return timedOut(ms);
    if (!reply.ok) throw new Error(`search_in_files: ${reply.error}`);
    const matches = reply.result as { file: string; lineNumber: number }[];
    const prefix = tree + '/';
    const files = new Set(matches.map((match) => match.file.slice(prefix.length)));
    return { ms, files, lines: new Set(matches.map((match) => `${match.file}:${match.lineNumber}`)).size };
  } finally {
    await server.stop();
    await rm(indexDir, { recursive: true, force: true });
  }
}

/** A run past the daemon's 10 s search budget (a loaded machine): no answer to check; counted as Infinity. */
function timedOut(ms: number): Found {
  log(`  (timed out after ${(ms / 1000).toFixed(1)} s)`);
  return { ms: Infinity, files: new Set(), lines: -1, state: 'timed out' };
}

function check(what: string, ours: Found, anchor: Found): void {
  if (ours.ms === Infinity) return;
  const missing = [...anchor.files].filter((path) => !ours.files.has(path));
  const extra = [...ours.files].filter((path) => !anchor.files.has(path));
  if (missing.length > 0 || extra.length > 0 || ours.lines !== anchor.lines) {
    throw new Error(
      `${what}: ours ${ours.files.size} files / ${ours.lines} lines, rg ${anchor.files.size} / ${anchor.lines} ` +
        `(missing e.g. ${missing.slice(0, 3).join(', ')}; extra e.g. ${extra.slice(0, 3).join(', ')})`,
    );
  }
}

async function interleaved(what: string, tree: string, measure: () => Promise<Found>): Promise<{ ours: number[]; anchor: number[]; states: string[]; anchorFound: Found }> {
  const ours: number[] = [];
  const anchor: number[] = [];
  const states: string[] = [];
  let anchorFound: Found | undefined;
  for (let run = 0; run < RUNS; run++) {
    const a = await measure();
    const b = await rgLines(tree, QUERY);
    check(what, a, b);
    ours.push(a.ms);
    anchor.push(b.ms);
    if (a.state !== undefined) states.push(a.state);
    anchorFound = b;
    log(`  ${what} run ${run + 1}: ours ${a.ms.toFixed(0)} ms${a.state === undefined ? '' : ` (${a.state})`}, rg ${b.ms.toFixed(0)} ms`);
  }
  return { ours, anchor, states, anchorFound: anchorFound! };
}

export async function benchFirstQuery(given: string, token: string): Promise<Figure[]> {
  const tree = await realpath(given); // search_in_files answers real paths
  await fixKernelGitignore(tree);
  await rgLines(tree, QUERY); // the page cache, for both sides
  const figures: Figure[] = [];
  const search = await interleaved('/workspace/search', tree, () => ourFirstQuery(tree, token));
  const states = [...new Set(search.states)].join('/');
  figures.push({
    figure: `search first query after start: find ${QUERY}`,
    unit: 'ms',
    ours: median(search.ours),
    anchor: median(search.anchor),
    higherIsBetter: false,
    note: `rg -n -i -F; ${search.anchorFound.lines} lines in ${search.anchorFound.files.size} files; answered ${states}; goal ≤ 1.5x`,
  });
  const rpc = await interleaved('/ws search_in_files', tree, () => ourFirstRpcQuery(tree, token));
  figures.push({
    figure: `/ws search_in_files first query after start: ${QUERY}`,
    unit: 'ms',
    ours: median(rpc.ours),
    anchor: median(rpc.anchor),
    higherIsBetter: false,
    note: `rg -n -i -F; same lines${rpc.ours.some((ms) => ms === Infinity) ? `; ${rpc.ours.filter((ms) => ms === Infinity).length} of ${RUNS} timed out` : ''}`,
  });
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { randomBytes } = await import('node:crypto');
  const { closeClient } = await import('./lib/http-client.ts');
  const tree = process.argv[2] ?? linuxTree;
  try {
    for (const figure of await benchFirstQuery(tree, randomBytes(24).toString('base64url'))) {
      const ratio = figure.ours / figure.anchor;
      console.log(`${figure.figure} | ${figure.ours.toFixed(0)} ms | rg ${figure.anchor.toFixed(0)} ms | ${ratio.toFixed(2)}x | ${figure.note}`);
    }
  } finally {
    await closeClient();
  }
}
