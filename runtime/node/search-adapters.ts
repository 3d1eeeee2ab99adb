/**
 * The search engine's Node parts: scanning, index building and symbol parsing on worker threads, the index
 * cached on disk outside the workspace; and health's per-file figures, parsed by the same grammars on a pool of
 * their own. Built by the Node server; the workers start lazily, end when idle, and `close` terminates them.
 */
import { availableParallelism } from 'node:os';
import { createIndexBuildPool } from '../../adapters/search/index-build-pool.ts';
import { createParsePool } from '../../adapters/search/parse-pool.ts';
import { DiskIndexStore } from '../../adapters/search/index-store-disk.ts';
import { createScanPool } from '../../adapters/search/scan-pool.ts';
import { DiskFiguresStore } from '../../adapters/health/disk-figures-store.ts';
import type { FiguresOf } from '../../core/health/file-figures.ts';
import type { FiguresStore } from '../../core/health/figures-store.ts';
import type { SearchAdapters } from '../../core/search/engine/engine-types.ts';

const HEALTH_WORKERS_MAX = 4;
const HEALTH_NICE = 10;
const HEALTH_PARSE_MS = 15_000;

export interface NodeSearchOptions {
  /** Keep the index on disk (the CLI does): under `indexDir`, else `$XDG_CACHE_HOME/workspace-api/…`. Default: in memory. */
  persist?: boolean;
  indexDir?: string;
  /** Build no content index: every query scans (`--no-index`). */
  noIndex?: boolean;
  /** Start the file list and the index at start-up rather than at the first search (the CLI does). */
  eager?: boolean;
  embeddings?: SearchAdapters['embeddings'];
  log?: (line: string) => void;
  /** The folder the workers' own reads must stay inside (the root's real path; absent under --unrestricted). */
  within?: string;
}

export function nodeSearchAdapters(
  root: string,
  options: NodeSearchOptions,
): { adapters: SearchAdapters & { eager?: boolean }; healthFigures: FiguresOf; healthStore?: FiguresStore; close(): Promise<void> } {
  const within = options.within === undefined ? {} : { within: options.within };
  const scanner = createScanPool(within);
  const parsePool = createParsePool();
  // Health measures a whole tree at once (the kernel: ~1 GB of C to parse, minutes per core): its own pool, so
  // `def` queries never wait behind it, on every core, niced so the daemon's main thread still comes first. Its
  // parse bound is longer than search's 2 s: a niced thread on a busy machine can take longer than that for a
  // big C file (a 237 KB header takes 0.5 s on an idle core), which would then count the line heuristics'
  // symbols (the kernel's symbol total moved by 861 between a loaded run and an idle one).
  const healthPool = createParsePool({
    workers: Math.min(HEALTH_WORKERS_MAX, availableParallelism()),
    nice: HEALTH_NICE,
    maxParseMs: HEALTH_PARSE_MS,
  });
  const store = options.persist && !options.noIndex ? lockedStore(root, options) : undefined;
  const adapters: SearchAdapters & { eager?: boolean } = {
    scanner,
    indexBuilder: createIndexBuildPool({ ...within, ...(store === undefined ? {} : { store }) }),
    // Symbols and `ast` patterns are parsed in the pool's worker: the WASM memory parsing grows stays off the
    // main thread, and so does the parsing.
    symbolsOf: parsePool.symbolsOf,
    warmParsers: () => parsePool.warm(),
    astMatcher: parsePool.astMatcher,
    ...(store === undefined ? {} : { indexStore: store }),
    ...(options.noIndex ? { index: false } : {}),
    ...(options.embeddings === undefined ? {} : { embeddings: options.embeddings }),
    ...(options.log === undefined ? {} : { log: options.log }),
    ...(options.eager ? { eager: true } : {}),
  };
  return {
    adapters,
    healthFigures: healthPool.figuresOf,
    // Health's figures beside the index, so a restart does not parse the tree again.
    ...(store === undefined ? {} : { healthStore: new DiskFiguresStore(store.dir) }),
    close: async () => {
      await Promise.all([scanner.close(), parsePool.close(), healthPool.close()]);
      store?.unlock();
    },
  };
}

/**
 * The disk store if this daemon can take its folder; else (another daemon on the same workspace holds it) none:
 * this one keeps its index in memory, and says so.
 */
function lockedStore(root: string, options: NodeSearchOptions): DiskIndexStore | undefined {
  const store = new DiskIndexStore({ root, dir: options.indexDir });
  const lock = store.lock();
  if (lock.ok) return store;
  options.log?.(`search: the index folder ${store.dir} is in use by process ${lock.holder}; this daemon keeps its index in memory`);
  return undefined;
}
