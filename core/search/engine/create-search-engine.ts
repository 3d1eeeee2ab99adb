/**
 * The search engine: starts its parts once, answers one page of a query at a time (core/search/search-engine.ts
 * says what the parts are). A query's whole ranked set is computed once and kept while the workspace is
 * unchanged (the file list's generation; a big one is recomputed instead, the ranking being deterministic), so
 * its pages never overlap and agree on `total`, `files` and `partial`; the cursor carries only where a page
 * stopped, signed for the query.
 *
 * A query asked before the file list's first walk has ended (the kernel tree: ~9 s after start) does not wait
 * for it: it walks the disk itself and scans what it finds as it finds it (./query-scope.ts), as ripgrep would,
 * and answers `building`. That walk lists exactly the files the list will, so the answer and its order are the
 * ones the list gives once ready, and a cursor from it pages on in the list's answer.
 */
import { WorkspaceError } from '../../errors/workspace-error.ts';
import type { Freshness, SearchAnswer } from '../answer.ts';
import { includeFilter } from '../paths/include-globs.ts';
import { answerPage } from '../query/answer-page.ts';
import { createCursorCodec } from '../query/cursor.ts';
import { takePage } from '../query/page.ts';
import type { RankedGroups, ResultSet } from '../query/result-set.ts';
import { queryIdentity, type SearchRequest } from '../query/search-request.ts';
import { inProcessAstMatcher } from '../symbols/ast-matcher.ts';
import { createEmbeddingsStage } from '../prose/embeddings.ts';
import { compileFind } from '../text/find-query.ts';
import { createFsScanner } from '../text/scanner.ts';
import { textTargets } from './text-search.ts';
import { decorateContext } from './decorate-context.ts';
import { caughtUp } from '../file-list/caught-up.ts';
import type { EngineParts } from './engine-parts.ts';
import { startEngineParts } from './engine-parts.ts';
import type { SearchEngine, SearchEngineOptions } from './engine-types.ts';
import { runMode, type ModeContext } from './run-mode.ts';
import { listGivesWay } from './list-gives-way.ts';
import { buildingPrefilter } from './building-prefilter.ts';
import { listScope, walkScope, type QueryScope, type WalkScope } from './query-scope.ts';
import { walkSearchable, type WalkedBatch } from '../file-list/walk-searchable.ts';
import type { FileList } from '../file-list/file-list.ts';
import { isFsError } from '../../../adapters/fs/fs-error.ts';

/** Whole result sets kept for paging (a few queries paged at once by a few clients). */
const CACHED_SETS = 16;
/** Groups a set may hold and still be kept (about 1 KiB each with their hits). */
const MAX_CACHED_GROUPS = 2000;
const DEFAULT_SCAN_BUDGET_MS = 10_000;

export function createSearchEngine(options: SearchEngineOptions): SearchEngine {
  const now = options.now ?? Date.now;
  const cursors = createCursorCodec(options.cursorKey);
  const scanner = options.scanner ?? createFsScanner(options.fs);
  const scanBudgetMs = options.scanBudgetMs ?? DEFAULT_SCAN_BUDGET_MS;
  const embeddings = options.embeddings === undefined ? undefined : createEmbeddingsStage(options.embeddings);
  const astMatcher = options.astMatcher ?? (options.parsers === undefined ? undefined : inProcessAstMatcher(options.parsers));
  const sets = new Map<string, { generation: number; epoch: number; set: Promise<ResultSet<RankedGroups>> }>();
  let parts: Promise<EngineParts> | undefined;
  let started: EngineParts | undefined;
  let closed = false;
  const shutdown = new AbortController();
  let running = 0;
  const walkingQueries = options.walkingQueries ?? listGivesWay(now);

  function start(): Promise<EngineParts> {
    if (closed) return Promise.reject(new WorkspaceError('not-implemented', 'search has been shut down'));
    // Until the list's first walk ends every text query scans: the workers start with the engine, not with it;
    // and its answer parses its top files for `context`: the parser's worker too.
    if (parts === undefined) {
      scanner.warm?.();
      options.warmParsers?.();
    }
    parts ??= startEngineParts({ searchesRunning: () => running, ...options }, shutdown.signal, () => walkingQueries.turn()).then((value) => {
      started = value;
      if (closed) void value.close();
      return value;
    });
    return parts;
  }

  function resultSet(engine: EngineParts, request: SearchRequest, identity: string): Promise<ResultSet<RankedGroups>> {
    // While the workspace is unchanged and no background part has finished since, the same answer: its pages
    // never overlap. A part finishing (say the prose index's first pass) makes a new answer, which may rank more.
    const generation = engine.fileList.generation;
    const epoch = engine.epoch();
    const cached = sets.get(identity);
    if (cached !== undefined && cached.generation === generation && cached.epoch === epoch) {
      sets.delete(identity); // re-inserted: most recently used last
      sets.set(identity, cached);
      return cached.set;
    }
    const filter = includeFilter(request.include);
    const set = runMode(request, modeContext(engine, listScope(engine.fileList, request.includeIgnored, filter), filter));
    sets.set(identity, { generation, epoch, set });
    set.then(
      // A big set (a 2-character `files` query ranks most of a kernel tree) is not kept: memory, not order, is the
      // issue — ranking is deterministic, so recomputing a page of an unchanged workspace gives the same pages.
      (made) => {
        if (made.groups.length > MAX_CACHED_GROUPS && sets.get(identity)?.set === set) sets.delete(identity);
      },
      () => sets.delete(identity),
    );
    while (sets.size > CACHED_SETS) sets.delete(sets.keys().next().value!);
    return set;
  }

  function modeContext(engine: EngineParts, scope: QueryScope, filter: ((path: string) => boolean) | undefined): ModeContext {
    return { engine, scanner, scope, filter, deadlineMs: now() + scanBudgetMs, embeddings, astMatcher };
  }

  /**
   * A query's whole set while the list's first walk runs, from a walk of its own (not kept: the next query walks
   * again, seeing what changed meanwhile, until the list answers).
   */
  async function walkedSet(engine: EngineParts, request: SearchRequest): Promise<{ set: ResultSet<RankedGroups>; scope: WalkScope }> {
    const filter = includeFilter(request.include);
    const walk = walkSearchable({ fs: options.fs, root: engine.root, exclude: engine.exclude, includeIgnored: request.includeIgnored });
    const scope = walkScope(rootReadable(walk), filter);
    try {
      return { set: await runMode(request, modeContext(engine, scope, filter)), scope };
    } finally {
      scope.close();
    }
  }

  /**
   * A page while the list's first walk runs: the background walks (the list's, the ignored folders') wait until
   * it is answered, its `context` parses included — on 2 cores they otherwise take the core those parses need.
   */
  async function buildingPage(engine: EngineParts, request: SearchRequest, identity: string, offset: number): Promise<SearchAnswer> {
    const ended = walkingQueries.begin();
    try {
      const { set, scope } = await walkedSet(engine, request);
      const page = takePage(set.groups, Math.min(offset, set.groups.length), request.limit);
      // decorateContext reads only `get` of the list: the walk's files stand in for the list's.
      await decorateContext(set.mode, page.groups, engine.symbols, { get: (path) => scope.get(path) } as Pick<FileList, 'get'> as FileList);
      const cursor = page.next < set.groups.length ? cursors.issue(identity, page.next) : undefined;
      return answerPage(set, page, cursor, { state: 'building', progress: 0 });
    } finally {
      ended();
    }
  }

  function freshness(engine: EngineParts): Freshness {
    const index = engine.index;
    if (index === undefined) return { state: 'fresh' };
    const status = index.status();
    if (status.state === 'building') return { state: 'building', progress: Math.floor(status.progress * 100) / 100 };
    const ageMs = status.lastCaughtUpAt === undefined ? undefined : Math.max(0, now() - status.lastCaughtUpAt);
    if (status.pending > 0) return { state: 'stale', behind: status.pending, ...(ageMs === undefined ? {} : { ageMs }) };
    return { state: 'fresh', ageMs: 0 };
  }

  async function searchPage(request: SearchRequest): Promise<SearchAnswer> {
    const identity = queryIdentity(request);
    let offset = 0;
    if (request.after !== undefined) {
      const opened = cursors.open(request.after, identity);
      if (opened === undefined) {
        throw new WorkspaceError('bad-request', 'invalid after: not a cursor this server issued for this query');
      }
      offset = opened;
    }
    const engine = await start();
    if (!engine.listed) return buildingPage(engine, request, identity, offset);
    if (!engine.fileList.isReady) throw new WorkspaceError('not-found', 'the workspace root cannot be read');
    await caughtUp(engine.fileList);
    const set = await resultSet(engine, request, identity);
    const page = takePage(set.groups, Math.min(offset, set.groups.length), request.limit);
    await decorateContext(set.mode, page.groups, engine.symbols, engine.fileList);
    const cursor = page.next < set.groups.length ? cursors.issue(identity, page.next) : undefined;
    return answerPage(set, page, cursor, freshness(engine));
  }

  async function settled(): Promise<void> {
    const engine = await start();
    await engine.whenListed;
    await engine.fileList.settled();
    await engine.index?.settled();
    await engine.proseFeed?.settled();
    await engine.symbolPass;
  }

  /** `settled()`, given up after `ms` (the engine goes on catching up). */
  async function settledWithin(ms: number): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const givenUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms))));
    try {
      await Promise.race([settled().catch(() => {}), givenUp]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    start() {
      start().catch(() => {}); // a failure is the next search's to report
    },
    readyFileList: () => (started?.fileList.isReady ? started.fileList : undefined),
    async search(request): Promise<SearchAnswer> {
      // Settled before `running` counts it: the prose feed waits while searches run.
      if (options.settleFirst) await settled();
      running++;
      try {
        return await searchPage(request);
      } finally {
        running--;
      }
    },
    async mayHoldMatch(query, scope = {}) {
      // Waited for within half of what is left of the caller's budget: an engine still building (its first start
      // on a big workspace) answers undefined, and the caller reads every file with the other half, as before.
      if (options.settleFirst && !closed) await settledWithin(((scope.deadlineMs ?? now() + scanBudgetMs) - now()) / 2);
      const engine = started ?? (parts === undefined || closed ? undefined : await parts.catch(() => undefined));
      if (engine === undefined) return undefined;
      if (engine.index === undefined || engine.index.status().state !== 'ready') {
        // The prefilter reads the files now, so it needs no change feed to be current.
        const deadlineMs = scope.deadlineMs ?? now() + scanBudgetMs;
        return buildingPrefilter({ fs: options.fs, engine, scanner, walkingQueries, query, under: scope.under, deadlineMs, searched: scope.searched });
      }
      // The index may have read a file long ago: only a feed that sees every change keeps it current.
      if (!options.changesAreSeen) return undefined;
      await caughtUp(engine.fileList);
      const compiled = compileFind(query);
      if (compiled.ranAsLiteral) return undefined; // the caller reports the pattern that does not compile
      const universe = engine.fileList.files({ includeIgnored: false });
      const candidates = await textTargets(universe, compiled, engine.index);
      const listed = absolutePaths(universe);
      const readable = new Set(candidates.map((file) => file.absolutePath));
      return (absolutePath) => !listed.has(absolutePath) || readable.has(absolutePath);
    },
    settled,
    async close() {
      closed = true;
      shutdown.abort();
      sets.clear();
      if (parts !== undefined) await (await parts.catch(() => undefined))?.close();
    },
  };
}

/** The direct walk, its root's failure told as the list tells it. */
async function* rootReadable(walk: AsyncIterable<WalkedBatch>): AsyncGenerator<WalkedBatch> {
  try {
    yield* walk;
  } catch (error) {
    if (isFsError(error)) throw new WorkspaceError('not-found', 'the workspace root cannot be read');
    throw error;
  }
}

/** The absolute paths of a file-list array, built once per array (the list hands out one array per generation). */
const listedPaths = new WeakMap<readonly { absolutePath: string }[], Set<string>>();
function absolutePaths(files: readonly { absolutePath: string }[]): Set<string> {
  let paths = listedPaths.get(files);
  if (paths === undefined) listedPaths.set(files, (paths = new Set(files.map((file) => file.absolutePath))));
  return paths;
}

