/**
 * The engine's running parts, started once per engine: the live file list, the content index fed by the list's
 * changes, and the progress lines. core/search/engine/create-search-engine.ts owns their lifetime.
 */
import { createContentIndex, type ContentIndex, type ContentIndexStatus } from '../content-index/content-index.ts';
import type { IndexEntry } from '../content-index/index-entry.ts';
import { MemoryIndexStore } from '../content-index/index-store.ts';
import type { FileFactsStore } from '../file-facts-store.ts';
import { createFileList } from '../file-list/create-file-list.ts';
import type { FileList, FileListEvent } from '../file-list/file-list.ts';
import type { ListedFile } from '../file-list/listed-file.ts';
import { createProseIndex, type ProseIndex } from '../prose/prose-index.ts';
import { readSearchable } from '../text/read-searchable.ts';
import type { SearchEngineOptions } from './engine-types.ts';
import { feedProseIndex, type ProseFeed } from './prose-feed.ts';
import { heuristicSymbols } from '../symbols/heuristic-symbols.ts';
import { SymbolIndex } from '../symbols/symbol-index.ts';

/**
 * Symbols the background pass keeps (~430 B each for C, ~950 B for JavaScript: 8–19 MiB): whole repositories
 * of ordinary size; a kernel-sized tree stops there and the rest is parsed on demand (def and refs parse the
 * files holding the name).
 */
const BACKGROUND_SYMBOLS = 20_000;
/**
 * The BM25 index's budget (~3.3 KiB a file of code: ~5 000 files, docs first) and the texts it keeps for line
 * picking (the rest are re-read when they rank). Measured so the daemon with everything loaded stays near 300 MiB
 * on the kernel tree (bench/search-engine.bench.ts).
 */
const PROSE_BYTES = 16 * 1024 * 1024;
const PROSE_TEXT_BYTES = 8 * 1024 * 1024;

export interface EngineParts {
  root: string;
  /** Absolute real folders never listed or searched (the agents' copies). */
  exclude: readonly string[];
  fileList: FileList;
  /**
   * The list's first walk has ended and the parts that follow it are set up (the index, the prose feed): until
   * then a query walks the disk itself (./query-scope.ts) and its answer says `building`.
   */
  readonly listed: boolean;
  /** Resolves when `listed` becomes true, or the start-up was stopped. Never rejects. */
  whenListed: Promise<void>;
  /** Absent with `index: false`, and until `listed`. */
  readonly index: ContentIndex | undefined;
  /** BM25 over the non-ignored text files, fed in the background (./prose-feed.ts). */
  prose: ProseIndex;
  /** Absent until `listed` (and when the root could not be read). */
  readonly proseFeed: ProseFeed | undefined;
  /** Definitions per file, parsed on demand and in a background pass (core/search/symbols). */
  symbols: SymbolIndex;
  /** Settles when the background symbol pass has ended (it starts after the content index's first build). */
  symbolPass: Promise<void>;
  /**
   * Bumps when a background part finishes its first pass (the content index, the prose feed, the symbol pass):
   * a query's answer computed before may lack what the part has since added, so the answer cache keys on it.
   */
  epoch(): number;
  /** A file's text bytes (≤ 1 MiB), or undefined when gone or too large. */
  read(file: { absolutePath: string }): Promise<Uint8Array | undefined>;
  /** The same, decoded as UTF-8 (leniently): what the parsers and the prose line picker take. */
  readText(file: { absolutePath: string }): Promise<string | undefined>;
  close(): Promise<void>;
}

/**
 * Starts the parts. Returns once the list's first walk has begun, not ended (a query meanwhile walks the disk
 * itself); the index and the prose feed are set up when it ends. `signal` aborts the first walk (shutdown during
 * start-up): the parts then start with nothing to do. `giveWay` pauses the list's walk (./list-gives-way.ts).
 */
export async function startEngineParts(
  options: SearchEngineOptions,
  signal: AbortSignal,
  giveWay?: () => Promise<void> | undefined,
): Promise<EngineParts> {
  const root = await options.root();
  const exclude = await options.exclude();
  const rootSlash = root === '/' ? '/' : root + '/';
  const fileList = createFileList({ fs: options.fs, root, changes: options.changes, exclude, ...(giveWay === undefined ? {} : { giveWay }) });
  signal.addEventListener('abort', () => fileList.close(), { once: true });
  const read = (file: { absolutePath: string }) => readSearchable(options.fs, file.absolutePath);
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const log = options.log;
  const now = options.now ?? Date.now;

  let index: ContentIndex | undefined;
  let proseFeed: ProseFeed | undefined;
  let listed = false;
  const unsubscribe: (() => void)[] = [];
  const prose = createProseIndex({ maxBytes: PROSE_BYTES, maxTextBytes: PROSE_TEXT_BYTES });
  const symbols = new SymbolIndex({
    files: () => fileList.files({ includeIgnored: false }),
    read: async (path) => {
      // Before the first walk ends, a query's files come from its own walk of the disk (./query-scope.ts).
      const file = fileList.get(path) ?? (listed ? undefined : { absolutePath: rootSlash + path });
      const bytes = file === undefined ? undefined : await read(file);
      if (bytes === undefined) throw new Error(`${path} is gone`);
      return bytes;
    },
    // Node parses in a worker (options.symbolsOf); else in-process with the parsers; without either (memory
    // backend, Workers) definitions come from the line heuristics alone.
    ...(options.symbolsOf !== undefined
      ? { symbolsOf: options.symbolsOf }
      : options.parsers === undefined
        ? { symbolsOf: async (path: string, text: string) => heuristicSymbols(path, text) }
        : { parsers: options.parsers }),
    maxSymbols: BACKGROUND_SYMBOLS,
    ...(options.symbolStore === undefined ? {} : { store: options.symbolStore }),
  });
  const factStores = [options.symbolStore, options.proseStore].filter((store) => store !== undefined);

  // The index starts from the first walk's files: before it ends, the list has none to give.
  const walkStartedAt = now();
  log?.('workspace-api: listing the workspace for search…');
  const afterWalk = (async () => {
    await fileList.ready;
    try {
      return setUpAfterWalk();
    } finally {
      listed = true;
    }
  })();
  function setUpAfterWalk() {
    if (fileList.isReady && !signal.aborted) {
      const count = fileList.files({ includeIgnored: true }).length;
      log?.(`workspace-api: listed ${count} files in ${((now() - walkStartedAt) / 1000).toFixed(1)} s`);
    }
    if (options.index !== false && fileList.isReady && !signal.aborted) {
      const startedAt = now();
      const progress = progressLine(log, startedAt, now);
      index = createContentIndex({
        files: () => fileList.files({ includeIgnored: false }),
        read,
        store: options.indexStore ?? new MemoryIndexStore(),
        ...(options.indexBuilder === undefined ? {} : { builder: options.indexBuilder }),
        ...(options.indexDeltaFiles === undefined ? {} : { deltaMaxFiles: options.indexDeltaFiles }),
        ...(options.compactIndex === undefined ? {} : { compact: options.compactIndex }),
        onProgress: progress,
        now,
      });
      const contentIndex = index;
      unsubscribe.push(fileList.onChange((events) => feedIndex(contentIndex, events)));
    }
    if (factStores.length > 0 && fileList.isReady && !signal.aborted) {
      // The stores follow the list: what it no longer holds (removed since the last run, or now) is forgotten.
      const searchable = (path: string) => fileList.get(path)?.ignored === false;
      for (const store of factStores) void store.retain(searchable).catch(() => {});
      unsubscribe.push(fileList.onChange((events) => forgetInStores(factStores, events, searchable)));
    }
    const indexBuilt = index?.settled() ?? Promise.resolve();
    if (fileList.isReady && !signal.aborted) {
      proseFeed = feedProseIndex(prose, fileList, read, {
        fullAt: PROSE_BYTES * 0.98,
        ...(options.proseStore === undefined ? {} : { store: options.proseStore }),
        mayRun: async () => {
          await indexBuilt;
          while (options.searchesRunning?.() ?? 0) await new Promise((resolve) => setTimeout(resolve, 20));
        },
      });
    }
    return { indexBuilt, walkedList: fileList.isReady && !signal.aborted };
  }
  // The background pass after the content index's first build: both want the same cores.
  const symbolPass = afterWalk
    .then(async ({ indexBuilt, walkedList }) => {
      if (!walkedList) return;
      await indexBuilt;
      await symbols.start();
    })
    .catch(() => {});
  return {
    root,
    exclude,
    fileList,
    get listed() {
      return listed;
    },
    whenListed: afterWalk.then(
      () => {},
      () => {},
    ),
    get index() {
      return index;
    },
    prose,
    get proseFeed() {
      return proseFeed;
    },
    symbols,
    symbolPass,
    read,
    readText: async (file) => {
      const bytes = await read(file);
      return bytes === undefined ? undefined : decoder.decode(bytes);
    },
    epoch: () =>
      (index === undefined || index.status().state === 'ready' ? 1 : 0) +
      (proseFeed === undefined || proseFeed.firstPassDone ? 2 : 0) +
      (symbols.status().state === 'ready' ? 4 : 0),
    async close() {
      symbols.stop();
      fileList.close(); // ends the first walk if it still runs
      await afterWalk.catch(() => {});
      proseFeed?.close();
      for (const stop of unsubscribe) stop();
      await index?.close();
    },
  };
}

/** Tells the index what the list changed: a file now ignored is one the index must forget. */
function feedIndex(index: ContentIndex, events: readonly FileListEvent[]): void {
  const changed: IndexEntry[] = [];
  const removed: string[] = [];
  for (const event of events) {
    if (event.kind === 'reset') {
      // Too much changed to tell file by file: the index compares itself with the whole list again (keeping
      // what it has at the same version, dropping what is no longer listed).
      index.resync();
      return;
    }
    if (event.kind === 'remove') removed.push(event.path);
    else if (event.file.ignored) removed.push(event.file.path);
    else changed.push(event.file);
  }
  if (changed.length > 0 || removed.length > 0) index.update(changed, removed);
}

/** What the list removed, or now ignores, leaves the fact stores (a later version replaces a fact by itself). */
function forgetInStores(
  stores: readonly FileFactsStore<unknown>[],
  events: readonly FileListEvent[],
  searchable: (path: string) => boolean,
): void {
  for (const event of events) {
    if (event.kind === 'reset') {
      for (const store of stores) void store.retain(searchable).catch(() => {});
    } else if (event.kind === 'remove' || event.file.ignored) {
      const path = event.kind === 'remove' ? event.path : event.file.path;
      for (const store of stores) void store.remove(path).catch(() => {});
    }
  }
}

/** Lines such as `workspace-api: indexing 40% (31 432 of 78 579 files)`, at most one per 10 % or 2 s. */
function progressLine(log: ((line: string) => void) | undefined, startedAt: number, now: () => number) {
  let lastAt = 0;
  let lastTenth = -1;
  let done = false;
  return (status: ContentIndexStatus) => {
    if (log === undefined || done) return;
    if (status.state === 'ready') {
      done = true;
      log(`workspace-api: search index ready: ${status.indexedFiles} files in ${((now() - startedAt) / 1000).toFixed(1)} s`);
      return;
    }
    const tenth = Math.floor(status.progress * 10);
    if (tenth === lastTenth && now() - lastAt < 2000) return;
    lastTenth = tenth;
    lastAt = now();
    log(`workspace-api: indexing for search ${Math.floor(status.progress * 100)}%`);
  };
}

/** The files of `request`'s scope: listed (and, with includeIgnored, the package stores' too), then `include`. */
export async function scopeFiles(
  fileList: FileList,
  includeIgnored: boolean,
  filter: ((path: string) => boolean) | undefined,
): Promise<readonly ListedFile[]> {
  let files: readonly ListedFile[] = fileList.files({ includeIgnored });
  if (includeIgnored) {
    const stores: ListedFile[] = [];
    for await (const file of fileList.storeFiles()) stores.push(file);
    if (stores.length > 0) files = [...files, ...stores];
  }
  return filter === undefined ? files : files.filter((file) => filter(file.path));
}
