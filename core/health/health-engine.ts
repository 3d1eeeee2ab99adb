/**
 * Health (docs/intentic-projects.md#health `GET /workspace/health`): churn × complexity hotspots and the most central
 * exporting modules of one scope. Edge-clean: the FileSystem, a GitRunner for churn, and the search engine's
 * parsers, in-process (`parsers`) or on worker threads (`figuresOf`); without either, complexity and symbols come
 * from the text rules and line heuristics.
 *
 * Per-file figures (./file-figures.ts) are cached by absolute path and dropped when the change feed reports
 * the file (a `resync` drops them all), so a warm call reads only what changed. The scope's file list is walked
 * again on every call, unless `changesAreSeen` (a watcher feeds the change feed everything): then a scope nothing
 * was reported under since its last measurement is answered from that measurement, walk and PageRank included
 * (on the kernel: 4.8 s → the churn tally alone). Churn is git's answer at the time of the call (./churn.ts keeps
 * the parsed log while HEAD stays). With a `store` (./figures-store.ts) the figures outlive the daemon: each is
 * kept with the file's size and mtime, and after a restart only files whose lstat moved are read and parsed.
 *
 * Freshness, per scope: a call measures the scope, waiting at most `waitMs`. Done in time and no change under the
 * scope reported meanwhile → `fresh` (ageMs: since that measurement finished). Not done: the measurement goes on
 * in the background and the call answers the scope's last complete figures as `stale` (`behind`: files left),
 * or, when there are none yet, `building` (`progress`) with empty figures. A change reported under the scope
 * while a measurement runs makes it measure again before it calls itself fresh.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import type { ChangeFeed, ChangeSubscription } from '../changes/change-feed.ts';
import type { GitRunner } from '../git/git-runner.ts';
import { mapLimited } from '../listing/map-limited.ts';
import { compareCodeUnits } from '../text/code-units.ts';
import type { RepoScope } from '../projects/repo-scope.ts';
import type { ParserAdapter } from '../search/symbols/syntax-tree.ts';
import { ChurnReader, type FileChurn } from './churn.ts';
import { fileFigures, MAX_MEASURED_BYTES, type FiguresOf, type FileFigures } from './file-figures.ts';
import type { FiguresStore, StampedFigures } from './figures-store.ts';
import type { HealthModule, HealthReport, Hotspot } from './health-report.ts';
import { pageRank } from './page-rank.ts';
import { resolveImport, type WorkspacePackage } from './resolve-imports.ts';
import { listScopeFiles, type ScopeFile } from './scope-files.ts';

export interface HealthEngineOptions {
  fs: FileSystem;
  /** The workspace root's real path. */
  root: string;
  git: GitRunner | undefined;
  parsers?: ParserAdapter | undefined;
  /** Measures one file (Node: on the parse pool's workers); preferred over `parsers`. */
  figuresOf?: FiguresOf | undefined;
  changes: ChangeFeed;
  /** Absolute folders never measured (the agents' copies). */
  exclude?: () => Promise<readonly string[]>;
  /** Keeps the per-file figures between runs (Node, with a persisted index); checked against each file's lstat. */
  store?: FiguresStore | undefined;
  /** Every change to the storage reaches `changes` (a watcher runs): an unchanged scope is not walked again. */
  changesAreSeen?: boolean;
  /** How long a call waits for a measurement before answering `building` or `stale` (default 5 s). */
  waitMs?: number;
  now?: () => number;
}

export interface HealthRequest {
  scope: RepoScope;
  /** The churn window's length (ms); undefined: all history. */
  windowMs: number | undefined;
  /** Cuts hotspots and modules. */
  limit: number;
  /** This call's wait for the measurement (default: the engine's `waitMs`). */
  waitMs?: number;
}

export interface HealthEngine {
  report(request: HealthRequest): Promise<HealthReport>;
  /** Stops listening; resolves once the figures are saved. */
  close(): Promise<void>;
}

interface MeasuredFile {
  path: string;
  figures: FileFigures;
}

interface Measurement {
  files: MeasuredFile[];
  /** Ranked once per measurement: modules do not depend on the churn window. */
  modules: HealthModule[];
  finishedMs: number;
  /** The scope's generation it measured: while that holds, nothing under the scope changed since. */
  generation: number;
}

interface ScopeState {
  dir: string;
  last?: Measurement;
  running?: Promise<Measurement>;
  /** Bumped by every change reported under the scope. */
  generation: number;
  done: number;
  total: number;
}

const PARALLEL_FILES = 16;

export function createHealthEngine(options: HealthEngineOptions): HealthEngine {
  const now = options.now ?? Date.now;
  const waitMs = options.waitMs ?? 5000;
  const churnReader = options.git && new ChurnReader(options.git);
  const measureFile: FiguresOf = options.figuresOf ?? ((path, bytes) => fileFigures(path, bytes, options.parsers));
  const cache = new Map<string, Promise<FileFigures>>();
  const scopes = new Map<string, ScopeState>();
  let subscription: ChangeSubscription | undefined;
  /**
   * Every file's figures with the size and mtime it had when measured: loaded from the store, and what the
   * store is given after each measurement that measured something (`unsaved`).
   */
  let stamped: Promise<Map<string, StampedFigures>> | undefined;
  let unsaved = false;
  let saving: Promise<void> = Promise.resolve();

  function stampedFigures(): Promise<Map<string, StampedFigures>> {
    stamped ??= (options.store?.load() ?? Promise.resolve(undefined)).then(
      (saved) => new Map(saved),
      () => new Map(), // an unreadable store is measured over
    );
    return stamped;
  }

  function save(): void {
    const store = options.store;
    if (!store || !unsaved) return;
    unsaved = false;
    saving = saving
      .then(async () => store.save(await stampedFigures()))
      .catch((error: unknown) => console.error(`workspace-api: health figures not saved: ${(error as Error).message}`));
  }

  function listen(): void {
    if (subscription) return;
    subscription = options.changes.subscribe();
    void (async () => {
      for await (const frame of subscription!) {
        if (frame.kind === 'resync') {
          // Changes were lost: everything is measured again (a same-size rewrite within the mtime's resolution
          // would fool a stamp check, and a resync is rare).
          cache.clear();
          (await stampedFigures()).clear();
          unsaved = true;
          for (const state of scopes.values()) state.generation++;
        } else if (frame.kind === 'change') {
          const path = frame.change.absolutePath;
          cache.delete(path);
          if ((await stampedFigures()).delete(path)) unsaved = true;
          // A `.gitignore` may rule over scopes beside it (a top-level folder reads the workspace's rules).
          const rules = path.endsWith('/.gitignore');
          for (const state of scopes.values()) if (rules || path === state.dir || path.startsWith(state.dir === '/' ? '/' : state.dir + '/')) state.generation++;
        }
      }
    })();
  }

  function figuresOf(file: ScopeFile): Promise<FileFigures> {
    let figures = cache.get(file.absolute);
    if (!figures) {
      figures = readFigures(file);
      cache.set(file.absolute, figures);
      figures.catch(() => cache.delete(file.absolute));
    }
    return figures;
  }

  async function readFigures(file: ScopeFile): Promise<FileFigures> {
    try {
      const stat = await options.fs.lstat(file.absolute);
      const stamps = await stampedFigures();
      const kept = stamps.get(file.absolute);
      if (kept && kept.size === stat.size && kept.mtimeMs === stat.mtimeMs) {
        const { size: _size, mtimeMs: _mtimeMs, ...figures } = kept;
        return figures;
      }
      const bytes = stat.size > MAX_MEASURED_BYTES ? undefined : await options.fs.read(file.absolute);
      const figures = await measureFile(file.path, bytes);
      stamps.set(file.absolute, { ...figures, size: stat.size, mtimeMs: stat.mtimeMs });
      unsaved = true;
      return figures;
    } catch (error) {
      if (isFsError(error)) return { complexity: 0, symbols: 0, exports: 0, imports: [], generated: false };
      throw error;
    }
  }

  async function measure(scope: RepoScope, state: ScopeState): Promise<Measurement> {
    for (;;) {
      const generation = state.generation;
      const exclude = (await options.exclude?.()) ?? [];
      const files = await listScopeFiles(options.fs, options.root, scope, { exclude });
      state.done = 0;
      state.total = files.length;
      const measured = await mapLimited(files, PARALLEL_FILES, async (file) => {
        const figures = await figuresOf(file);
        state.done++;
        return { path: file.path, figures };
      });
      const packages = await workspacePackages(files);
      if (state.generation === generation) {
        save();
        return { files: measured, modules: rankModules(measured, packages), finishedMs: now(), generation };
      }
    }
  }

  async function workspacePackages(files: readonly ScopeFile[]): Promise<Map<string, WorkspacePackage>> {
    const packages = new Map<string, WorkspacePackage>();
    for (const file of files) {
      if (!(file.path === 'package.json' || file.path.endsWith('/package.json'))) continue;
      let manifest: unknown;
      try {
        manifest = JSON.parse(new TextDecoder().decode(await options.fs.read(file.absolute)));
      } catch {
        continue; // unreadable or not JSON: no package
      }
      if (typeof manifest !== 'object' || manifest === null) continue;
      const { name, main } = manifest as Record<string, unknown>;
      if (typeof name !== 'string' || name === '' || packages.has(name)) continue;
      const dir = file.path === 'package.json' ? '' : file.path.slice(0, -'/package.json'.length);
      packages.set(name, typeof main === 'string' ? { dir, main } : { dir });
    }
    return packages;
  }

  async function churnOf(scope: RepoScope, windowMs: number | undefined): Promise<Map<string, FileChurn>> {
    if (!churnReader) return new Map();
    return churnReader.read(scope.dir, scope.relative, windowMs === undefined ? undefined : now() - windowMs);
  }

  return {
    async report({ scope, windowMs, limit, waitMs: callWaitMs }) {
      listen();
      let state = scopes.get(scope.dir);
      if (!state) {
        state = { dir: scope.dir, generation: 0, done: 0, total: 0 };
        scopes.set(scope.dir, state);
      }
      const current = state;
      const unchanged = options.changesAreSeen === true && current.last !== undefined && current.last.generation === current.generation;
      if (!current.running && !unchanged) {
        const running = measure(scope, current);
        current.running = running;
        running.then(
          (measurement) => {
            current.last = measurement;
            if (current.running === running) current.running = undefined;
          },
          () => {
            if (current.running === running) current.running = undefined;
          },
        );
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      const waited = current.running === undefined ? current.last : await Promise.race([
        current.running,
        new Promise<undefined>((resolve) => {
          timer = setTimeout(() => resolve(undefined), callWaitMs ?? waitMs);
        }),
      ]).finally(() => clearTimeout(timer));
      const churn = await churnOf(scope, windowMs);
      if (waited) return answer(scope.id, waited, churn, limit, { state: 'fresh', ageMs: Math.max(0, now() - waited.finishedMs) });
      if (current.last) {
        return answer(scope.id, current.last, churn, limit, {
          state: 'stale',
          ageMs: Math.max(0, now() - current.last.finishedMs),
          behind: Math.max(0, current.total - current.done),
        });
      }
      return {
        repo: scope.id,
        totals: { files: 0, symbols: 0, complexity: 0, hotspots: 0 },
        hotspots: [],
        modules: [],
        freshness: { state: 'building', ageMs: 0, progress: current.total === 0 ? 0 : current.done / current.total },
      };
    },
    close() {
      subscription?.close();
      save();
      return saving;
    },
  };
}

function answer(repo: string, measurement: Measurement, churn: Map<string, FileChurn>, limit: number, freshness: HealthReport['freshness']): HealthReport {
  const { files, modules } = measurement;
  let symbols = 0;
  let complexity = 0;
  const hotspots: Hotspot[] = [];
  for (const { path, figures } of files) {
    symbols += figures.symbols;
    complexity += figures.complexity;
    const changed = churn.get(path);
    if (figures.complexity > 0 && changed && changed.commits > 0) {
      hotspots.push({
        path,
        commits: changed.commits,
        adds: changed.adds,
        dels: changed.dels,
        complexity: figures.complexity,
        score: changed.commits * figures.complexity,
        latestMs: changed.latestMs,
      });
    }
  }
  hotspots.sort((a, b) => b.score - a.score || compareCodeUnits(a.path, b.path));
  return {
    repo,
    totals: { files: files.length, symbols, complexity, hotspots: hotspots.length },
    hotspots: hotspots.slice(0, limit),
    modules: modules.slice(0, limit),
    freshness,
  };
}

/** Exporting, non-generated files by PageRank over the resolved imports of every file in the scope. */
export function rankModules(files: readonly MeasuredFile[], packages: ReadonlyMap<string, WorkspacePackage>): HealthModule[] {
  const index = new Map(files.map((file, i) => [file.path, i]));
  const paths = new Set(index.keys());
  const edges: [number, number][] = [];
  files.forEach((file, from) => {
    for (const specifier of file.figures.imports) {
      const target = resolveImport(file.path, specifier, paths, packages);
      if (target !== undefined) edges.push([from, index.get(target)!]);
    }
  });
  const rank = pageRank(files.length, edges);
  return files
    .map((file, i) => ({ file, rank: rank[i]! }))
    .filter(({ file }) => file.figures.exports > 0 && !file.figures.generated)
    .sort((a, b) => b.rank - a.rank || compareCodeUnits(a.file.path, b.file.path))
    .map(({ file }) => ({ path: file.path, exports: file.figures.exports }));
}
