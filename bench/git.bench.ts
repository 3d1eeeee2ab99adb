/**
 * (git) The protocol's git commands over `/ws` on the Linux kernel committed into a repo, vs the git command run
 * directly:
 *   `get_git_status` clean              vs `git status --porcelain`   (goal ≤ 1.3x)
 *   `get_git_status` ~20 modified + untracked (ours also runs `diff --numstat`) vs the same `git status --porcelain`
 *   `git_log {limit: 50}`               vs `git log --no-color -50 --numstat`
 *   `get_git_diff {file}` of a ≈1 MiB diff vs `git diff --no-color --no-ext-diff -- F`
 *
 * Ours: our daemon in its own process (bench/servers/ours.ts) rooted at the repo, one `/ws` socket
 * (bench/lib/rpc-socket.ts), the time from sending the request to its reply parsed. Anchor: git spawned in the
 * repo, spawn to exit with all output read. Both see the SAME environment: the server child's (config-free: no
 * ~/.gitconfig or /etc/gitconfig, bench/lib/git-repo-corpus.ts configFreeEnv), with what our git runner adds to it
 * (adapters/git/git-env.ts gitEnv: LC_ALL=C, GIT_CEILING_DIRECTORIES, …) given to the anchor too, so neither side
 * reads config or runs in a locale the other does not. Each working-tree state is made, the index refreshed by an
 * untimed `git status`, and every reply checked against git's own output before timing; medians of interleaved
 * runs (ours, anchor, ours, …) after one warm-up each, warm page cache.
 */
import { realpathSync } from 'node:fs';
import { gitEnv } from '../adapters/git/git-env.ts';
import type { GitCommitInfo, GitStatus } from '../core/git/git-shapes.ts';
import { startChildServer } from './lib/child-server.ts';
import {
  BIG_DIFF_FILE,
  CONFIG_FREE,
  configFreeEnv,
  dirtyFiles,
  makeBigDiff,
  makeDirty,
  prepareGitCorpus,
  restoreClean,
  runGit,
  UNTRACKED,
} from './lib/git-repo-corpus.ts';
import { log } from './lib/log.ts';
import type { Figure } from './lib/result.ts';
import { RpcSocket } from './lib/rpc-socket.ts';
import { median, nowMs, sampleInterleaved } from './lib/stats.ts';

const RUNS = 15;
const LOG_LIMIT = 50;
/** The goal for the clean status row. */
const STATUS_GOAL = 1.3;
/** As bench/lib/child-server.ts starts our daemon (package.json's `start`): its git children inherit these. */
const DAEMON_PROCESS_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072', NODE_ENV: 'production' };

/** What the log row compares of each commit. */
type CommitSums = Pick<GitCommitInfo, 'hash' | 'insertions' | 'deletions'>;

/** One side's timed call: resolves with the milliseconds it took. */
type Measure = () => Promise<number>;

export async function benchGit(linuxTree: string, token: string): Promise<Figure[]> {
  const corpus = await prepareGitCorpus(linuxTree);
  const repo = corpus.repo;
  const leaked = Object.keys(process.env).filter((key) => key.startsWith('GIT_'));
  if (leaked.length > 0) log(`git: note, both sides inherit ${leaked.join(' ')} from this environment`);
  // The server child gets process.env + this (child-server.ts); the anchor gets exactly what the server's git gets.
  const config = configFreeEnv();
  const serverEnv = { BENCH_ROOT: repo, BENCH_TOKEN: token, ...CONFIG_FREE };
  // gitEnv's root is the server's real root (runtime/node/server.ts realPathOr): the same GIT_CEILING_DIRECTORIES.
  const anchorEnv = gitEnv(realpathSync(repo), { ...process.env, ...DAEMON_PROCESS_ENV, ...serverEnv });
  const prepNote = corpus.preparedSeconds > 0 ? `prepared in ${corpus.preparedSeconds.toFixed(0)} s (import commit ${corpus.importSeconds.toFixed(0)} s)` : 'cached repo';

  await restoreClean(repo, config);
  const server = await startChildServer('ours', 'ours', serverEnv);
  const socket = await RpcSocket.connect(server.baseUrl, token);
  try {
    const call = async (command: string, args: Record<string, unknown>) => {
      const reply = await socket.call(command, args);
      if (!reply.ok) throw new Error(`/ws ${command}: ${reply.error}`);
      return reply.result;
    };
    const timedOurs = (command: string, args: Record<string, unknown>): Measure => async () => {
      const start = nowMs();
      await call(command, args);
      return nowMs() - start;
    };
    const anchor = (args: string[]) => runGit(repo, args, anchorEnv);
    const timedAnchor = (args: string[]): Measure => async () => {
      const start = nowMs();
      const result = await anchor(args);
      const ms = nowMs() - start;
      if (result.code !== 0) throw new Error(`git ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      return ms;
    };
    const figures: Figure[] = [];
    const measure = async (figure: string, ours: Measure, theirs: Measure, note: (ratio: number) => string) => {
      const samples = await sampleInterleaved(RUNS, ours, theirs);
      const fmt = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(', ');
      log(`${figure}: ours [${fmt(samples.ours)}] ms | anchor [${fmt(samples.anchor)}] ms`);
      const row = { figure, unit: 'ms', ours: median(samples.ours), anchor: median(samples.anchor), higherIsBetter: false };
      figures.push({ ...row, note: note(row.ours / row.anchor) });
    };
    const statusAnchor = ['status', '--porcelain'];

    // 1a. Clean tree: ours is the status alone (the top level is remembered after the warm-up); no diff.
    await anchor(['status']); // the untimed index refresh (restoreClean ran one too)
    const clean = (await call('get_git_status', { path: repo })) as GitStatus;
    const cleanAnchor = await anchor(statusAnchor);
    const listed = (s: GitStatus) => [...s.modified, ...s.staged, ...s.untracked, ...s.deleted, ...s.unmerged];
    if (clean.branch !== 'main' || clean.ahead !== 0 || clean.behind !== 0 || listed(clean).length > 0 || cleanAnchor.stdout.length > 0) {
      throw new Error(`clean status: ours ${JSON.stringify(clean).slice(0, 300)}, git printed ${JSON.stringify(cleanAnchor.stdout.toString().slice(0, 300))}`);
    }
    const tracked = (await runGit(repo, ['ls-files'], anchorEnv)).stdout.toString('utf8').split('\n').length - 1;
    await measure('get_git_status, kernel repo, clean', timedOurs('get_git_status', { path: repo }), timedAnchor(statusAnchor), (ratio) =>
      `vs git status --porcelain; ${tracked} tracked files; goal <= ${STATUS_GOAL}x: ${ratio <= STATUS_GOAL ? 'met' : 'MISSED'}; ${prepNote}`,
    );

    // 1b. ~20 modified files and a few untracked: ours adds `diff --numstat` (worktreeStats).
    await makeDirty(repo, config);
    await anchor(['status']);
    const modified = await dirtyFiles(repo, config);
    const dirty = (await call('get_git_status', { path: repo })) as GitStatus;
    const dirtyAnchor = (await anchor(statusAnchor)).stdout.toString('utf8');
    const expectedUntracked = ['Documentation/bench-untracked.txt', 'bench-untracked/', 'mm/bench-untracked.c'];
    const sameList = (a: string[], b: string[]) => JSON.stringify([...a].sort()) === JSON.stringify([...b].sort());
    const statsOk = Object.keys(dirty.worktreeStats).length === modified.length && modified.every((f) => dirty.worktreeStats[f]?.insertions === 3 && dirty.worktreeStats[f]?.deletions === 2);
    if (!sameList(dirty.modified, modified) || !sameList(dirty.untracked, expectedUntracked) || !statsOk || dirtyAnchor.split('\n').length - 1 !== modified.length + expectedUntracked.length) {
      throw new Error(`dirty status: ours ${JSON.stringify(dirty).slice(0, 600)}, git printed ${JSON.stringify(dirtyAnchor.slice(0, 600))}`);
    }
    await measure(
      `get_git_status, kernel repo, ${modified.length} modified + ${UNTRACKED.length} untracked`,
      timedOurs('get_git_status', { path: repo }),
      timedAnchor(statusAnchor),
      () => 'vs git status --porcelain; ours also runs diff --numstat -z -M for worktreeStats',
    );
    await restoreClean(repo, config);

    // 2. git_log 50 on the history made in preparation.
    const logAnchor = ['log', '--no-color', `-${LOG_LIMIT}`, '--numstat'];
    const commits = (await call('git_log', { path: repo, limit: LOG_LIMIT })) as CommitSums[];
    const expected = commitsOf((await anchor(logAnchor)).stdout.toString('utf8'));
    const got = commits.map(({ hash, insertions, deletions }) => ({ hash, insertions, deletions }));
    if (commits.length !== LOG_LIMIT || JSON.stringify(got) !== JSON.stringify(expected)) {
      throw new Error(`git_log: ours ${JSON.stringify(got).slice(0, 400)}, git ${JSON.stringify(expected).slice(0, 400)}`);
    }
    const changed = expected.reduce((n, c) => n + c.insertions + c.deletions, 0);
    await measure(`git_log ${LOG_LIMIT}`, timedOurs('git_log', { path: repo, limit: LOG_LIMIT }), timedAnchor(logAnchor), () =>
      `vs git log --no-color -${LOG_LIMIT} --numstat; ${changed} lines changed in those commits`,
    );

    // 3. A ≈1 MiB diff of one file; ours must be git's stdout exactly.
    await makeBigDiff(repo);
    await anchor(['status']);
    const diffAnchor = ['diff', '--no-color', '--no-ext-diff', '--', BIG_DIFF_FILE];
    const diff = (await call('get_git_diff', { path: repo, file: BIG_DIFF_FILE })) as string;
    const gitDiff = (await anchor(diffAnchor)).stdout;
    if (diff !== gitDiff.toString('utf8')) {
      throw new Error(`get_git_diff differs from git diff: ours ${diff.length} chars, git ${gitDiff.length} bytes`);
    }
    const mib = gitDiff.length / (1024 * 1024);
    await measure(`get_git_diff, ${mib.toFixed(2)} MiB diff`, timedOurs('get_git_diff', { path: repo, file: BIG_DIFF_FILE }), timedAnchor(diffAnchor), () =>
      `vs git diff --no-color --no-ext-diff -- F; ${BIG_DIFF_FILE}, equal to git's stdout`,
    );
    return figures;
  } finally {
    await socket.close().catch(() => {});
    await server.stop();
    await restoreClean(repo, config).catch((error: unknown) => log(`git: ${String(error)}`));
  }
}

/** `git log --numstat` (default format) → per commit its hash and numstat sums (binary `-` counts 0). */
function commitsOf(text: string): CommitSums[] {
  const commits: CommitSums[] = [];
  for (const line of text.split('\n')) {
    const header = /^commit ([0-9a-f]{40})/.exec(line);
    if (header) {
      commits.push({ hash: header[1]!, insertions: 0, deletions: 0 });
      continue;
    }
    const numstat = /^(\d+|-)\t(\d+|-)\t/.exec(line);
    const current = commits.at(-1);
    if (numstat && current) {
      current.insertions += numstat[1] === '-' ? 0 : Number(numstat[1]);
      current.deletions += numstat[2] === '-' ? 0 : Number(numstat[2]);
    }
  }
  return commits;
}
