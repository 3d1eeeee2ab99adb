/**
 * (projects) Intentic's project calls on the generated monorepo (bench/lib/monorepo-corpus.ts: 500 libraries + 20
 * apps, pnpm workspace, 31 commits): `GET /workspace/setup`, `/workspace/repos/root/graph` and
 * `/workspace/health?repo=root`, each cold (the first call after the daemon is up: the model's and health's caches
 * empty) and warm (median of 7 after that). Anchors, a floor for the same work done by the simplest tool:
 * setup and graph against `find` listing the package.json files (the walk alone, no parsing), health against
 * `git log --numstat` (its churn input alone).
 *
 * (projects, kernel) `benchKernelHealth`: `/workspace/health?repo=root` on the kernel repo (bench/lib/
 * git-repo-corpus.ts: 78k files, 65 commits). Cold: from the first call until an answer says `fresh` (the call
 * itself answers `building` after 5 s; it is asked again every 2 s), i.e. every file parsed once on the parse
 * pool's workers. Warm: median of 5 after that. After a restart: a new daemon on the same index folder, until
 * fresh (the figures kept on disk, each file only lstat'd). Anchor: `git log --numstat` of the same repo, the
 * churn input.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildServer } from './lib/child-server.ts';
import { getJson } from './lib/http-client.ts';
import { configFreeEnv, CONFIG_FREE, prepareGitCorpus } from './lib/git-repo-corpus.ts';
import { log } from './lib/log.ts';
import { APP_COUNT, LIBRARY_COUNT, prepareMonorepo } from './lib/monorepo-corpus.ts';
import type { Figure } from './lib/result.ts';
import { median, nowMs } from './lib/stats.ts';

const WARM_RUNS = 7;

/** Spawn to exit with all output read, in ms. */
function timedCommand(cwd: string, command: string, args: string[], env?: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = nowMs();
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'ignore'], ...(env === undefined ? {} : { env }) });
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', () => resolve(nowMs() - start));
  });
}

export async function benchProjects(token: string): Promise<Figure[]> {
  const root = await prepareMonorepo();
  const server = await startChildServer('ours', 'ours', { BENCH_ROOT: root, BENCH_TOKEN: token });
  const headers = { 'x-intentic-control': token };
  const figures: Figure[] = [];
  try {
    const calls: Array<{ name: string; path: string; check: (body: any) => string; anchor: () => Promise<number>; anchorName: string }> = [
      {
        name: 'setup',
        path: '/workspace/setup',
        check: (body) => `${body.projects.length} project(s): ${body.projects.map((p: { state: string }) => p.state).join(', ')}`,
        anchor: () => timedCommand(root, 'find', ['.', '-name', 'package.json', '-not', '-path', '*/node_modules/*']),
        anchorName: 'find -name package.json',
      },
      {
        name: 'graph',
        path: '/workspace/repos/root/graph',
        check: (body) => {
          if (body.packages.length !== LIBRARY_COUNT + APP_COUNT) throw new Error(`graph: ${body.packages.length} packages`);
          return `${body.packages.length} packages, ${body.edges.length} edges`;
        },
        anchor: () => timedCommand(root, 'find', ['.', '-name', 'package.json', '-not', '-path', '*/node_modules/*']),
        anchorName: 'find -name package.json',
      },
      {
        name: 'health',
        path: '/workspace/health?repo=root',
        check: (body) => `${body.totals.files} files, ${body.totals.hotspots} hotspots, freshness ${body.freshness.state}`,
        anchor: () => timedCommand(root, 'git', ['log', '--no-merges', '--numstat']),
        anchorName: 'git log --numstat',
      },
    ];
    for (const call of calls) {
      const url = `${server.baseUrl}${call.path}`;
      const start = nowMs();
      const body = await getJson(url, headers);
      const cold = nowMs() - start;
      const shown = call.check(body);
      const warm: number[] = [];
      const anchor: number[] = [];
      for (let i = 0; i < WARM_RUNS; i++) {
        const t = nowMs();
        await getJson(url, headers);
        warm.push(nowMs() - t);
        anchor.push(await call.anchor());
      }
      const anchorMs = median(anchor);
      figures.push({ figure: `${call.name}, monorepo ${LIBRARY_COUNT + APP_COUNT} packages, cold`, unit: 'ms', ours: cold, anchor: anchorMs, higherIsBetter: false, note: `vs ${call.anchorName} (a floor); ${shown}` });
      figures.push({ figure: `${call.name}, monorepo, warm`, unit: 'ms', ours: median(warm), anchor: anchorMs, higherIsBetter: false, note: `median of ${WARM_RUNS}` });
    }
  } finally {
    await server.stop();
  }
  return figures;
}

const KERNEL_WARM_RUNS = 5;
const KERNEL_POLL_MS = 2000;
/** The cold pass is minutes on 2 cores; past this the figure is given up (and says so). */
const KERNEL_COLD_LIMIT_MS = 30 * 60_000;

interface HealthBody {
  totals: { files: number; symbols: number; complexity: number; hotspots: number };
  hotspots: { path: string }[];
  freshness: { state: string; progress?: number };
}

/** Asks until an answer says `fresh`; the time from the first call, and that answer. */
async function untilFresh(url: string, headers: Record<string, string>, what: string): Promise<{ ms: number; body: HealthBody }> {
  const start = nowMs();
  let body = await getJson<HealthBody>(url, headers);
  let lastLog = start;
  while (body.freshness.state !== 'fresh') {
    if (nowMs() - start > KERNEL_COLD_LIMIT_MS) throw new Error(`${what}: not fresh after ${KERNEL_COLD_LIMIT_MS / 60_000} min`);
    if (nowMs() - lastLog > 30_000) {
      log(`projects: ${what} ${body.freshness.state}, ${Math.round((body.freshness.progress ?? 0) * 100)}% after ${Math.round((nowMs() - start) / 1000)} s`);
      lastLog = nowMs();
    }
    await new Promise((resolve) => setTimeout(resolve, KERNEL_POLL_MS));
    body = await getJson<HealthBody>(url, headers);
  }
  return { ms: nowMs() - start, body };
}

export async function benchKernelHealth(linuxTree: string, token: string): Promise<Figure[]> {
  const { repo } = await prepareGitCorpus(linuxTree);
  // A persisted index folder of its own (as the CLI runs): health keeps its figures there across the restart.
  const indexDir = await mkdtemp(join(tmpdir(), 'bench-health-index-'));
  const env = { BENCH_ROOT: repo, BENCH_TOKEN: token, BENCH_SEARCH: JSON.stringify({ persist: true, indexDir }), ...CONFIG_FREE };
  const headers = { 'x-intentic-control': token };
  const figures: Figure[] = [];
  try {
    let server = await startChildServer('ours', 'ours', env);
    let url = `${server.baseUrl}/workspace/health?repo=root`;
    let cold: { ms: number; body: HealthBody };
    const warm: number[] = [];
    const anchor: number[] = [];
    try {
      cold = await untilFresh(url, headers, 'kernel health, cold');
      for (let i = 0; i < KERNEL_WARM_RUNS; i++) {
        const t = nowMs();
        const again = await getJson<HealthBody>(url, headers);
        warm.push(nowMs() - t);
        if (again.freshness.state !== 'fresh' || again.totals.files !== cold.body.totals.files) throw new Error(`health on the kernel, warm: ${JSON.stringify(again.freshness)}, ${again.totals.files} files`);
        anchor.push(await timedCommand(repo, 'git', ['log', '--no-merges', '--numstat'], configFreeEnv()));
      }
    } finally {
      await server.stop();
    }
    server = await startChildServer('ours', 'ours', env);
    url = `${server.baseUrl}/workspace/health?repo=root`;
    let restarted: { ms: number; body: HealthBody };
    try {
      restarted = await untilFresh(url, headers, 'kernel health, after a restart');
    } finally {
      await server.stop();
    }
    if (JSON.stringify(restarted.body.totals) !== JSON.stringify(cold.body.totals)) {
      throw new Error(`health after a restart: ${JSON.stringify(restarted.body.totals)}, before ${JSON.stringify(cold.body.totals)}`);
    }
    const { totals } = cold.body;
    const shown = `${totals.files} files, ${totals.symbols} symbols, complexity ${totals.complexity}, ${totals.hotspots} hotspots`;
    const anchorMs = median(anchor);
    figures.push(
      { figure: 'health, kernel repo, cold (until fresh)', unit: 'ms', ours: cold.ms, anchor: anchorMs, higherIsBetter: false, note: `vs git log --numstat (a floor); ${shown}` },
      { figure: 'health, kernel repo, warm', unit: 'ms', ours: median(warm), anchor: anchorMs, higherIsBetter: false, note: `median of ${KERNEL_WARM_RUNS}` },
      { figure: 'health, kernel repo, after a restart', unit: 'ms', ours: restarted.ms, anchor: anchorMs, higherIsBetter: false, note: 'figures kept beside the index; the same totals' },
    );
  } finally {
    await rm(indexDir, { recursive: true, force: true });
  }
  return figures;
}
