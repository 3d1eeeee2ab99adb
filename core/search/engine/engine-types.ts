/** The search engine's public shape and what a runtime hands it (core/search/search-engine.ts says what it is). */
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import type { ChangeFeed } from '../../changes/change-feed.ts';
import type { SearchAnswer } from '../answer.ts';
import type { IndexBuilder } from '../content-index/index-builder.ts';
import type { IndexStore } from '../content-index/index-store.ts';
import type { FileFactsStore } from '../file-facts-store.ts';
import type { SymbolDef } from '../symbols/symbol-def.ts';
import type { StoredProse } from './prose-feed.ts';
import type { FileList } from '../file-list/file-list.ts';
import type { SearchRequest } from '../query/search-request.ts';
import type { AstMatcher } from '../symbols/ast-matcher.ts';
import type { SymbolsOf } from '../symbols/file-symbols.ts';
import type { ParserAdapter } from '../symbols/syntax-tree.ts';
import type { TextScanner } from '../text/scanner.ts';
import type { FindQuery } from '../text/find-query.ts';
import type { EmbeddingsConfig } from '../prose/embeddings.ts';
import type { ListGivesWay } from './list-gives-way.ts';

/** The runtime's part: Node passes worker-thread scanning and building, the disk cache and the WASM parsers. */
export interface SearchAdapters {
  /** Scans files for `find` (Node: worker threads). Default: in-process over the FileSystem. */
  scanner?: TextScanner;
  /** Where the content index persists (Node: a cache folder). Default: in memory. */
  indexStore?: IndexStore;
  /** Builds index shards off the event loop (Node: worker threads). Default: in-process, in slices. */
  indexBuilder?: IndexBuilder;
  /**
   * Changed files the index holds in memory before it stores them as a shard (default 2000). A runtime whose
   * process may end without `close` (a Durable Object, evicted when idle) keeps it small: a restart re-reads the
   * files changed since the last shard, at most this many.
   */
  indexDeltaFiles?: number;
  /**
   * Build the index without its dense 2^24 scratch tables (~290 MiB of buffers, most pages never touched: free on
   * Node), in shards of 2 MiB of text: for a runtime whose memory limit counts every allocated byte (Workers: 128
   * MB an isolate). The same answers. With `indexBuilder`, only the in-memory delta and its flushes (the builder
   * builds its own way).
   */
  compactIndex?: boolean;
  /** Each file's definitions between runs (Workers: the object's SQLite); default: none, a start parses again. */
  symbolStore?: FileFactsStore<readonly SymbolDef[]>;
  /** Each file's prose terms between runs (Workers: the object's SQLite); default: none, a start reads again. */
  proseStore?: FileFactsStore<StoredProse>;
  /** Build the content index at all (default true); without it every query scans. */
  index?: boolean;
  /** Tree-sitter parsers (Node: WASM from node_modules); without them definitions come from heuristics only. */
  parsers?: ParserAdapter;
  /**
   * A file's definitions, for the symbol index (Node: parsed in a worker thread that ends when idle, so the WASM
   * memory big files grow goes back to the OS). Preferred over `parsers` for symbols. Default: `parsers`
   * in-process, else the line heuristics.
   */
  symbolsOf?: SymbolsOf;
  /**
   * Gets `symbolsOf` ready now (Node: starts its worker, ~60 ms, and the parser runtime): the engine calls it when
   * it starts, since the first query's answer parses its top files for `context` (./decorate-context.ts).
   */
  warmParsers?: () => void;
  /** The `ast` mode's matcher (Node: in the same worker). Default: `parsers` in-process; without either, no `ast`. */
  astMatcher?: AstMatcher;
  /** An OpenAI-compatible embeddings endpoint for prose queries; without it `features` says `sem` is off. */
  embeddings?: EmbeddingsConfig;
  /** Where progress lines go (the Node CLI: stderr). */
  log?: (line: string) => void;
  /** Per-query time budget of a scan, ms (default 10 s). */
  scanBudgetMs?: number;
  /** The cursors' HMAC key (default: a random one per engine; engines given one key honour each other's cursors). */
  cursorKey?: Uint8Array;
  /**
   * Every search (and `mayHoldMatch`) first waits until the list, the index, the prose index and the symbols have
   * caught up with every change delivered, so an answer is whole — never `building` nor `stale` — as a scan's
   * would be. For a runtime whose engine outlives requests but not the process, and which loads its index from
   * storage quickly (a Durable Object: runtime/search/durable-object-search.ts). Default: answer at once and say
   * how fresh the answer is (`freshness`).
   */
  settleFirst?: boolean;
}

export interface SearchEngineOptions extends SearchAdapters {
  fs: FileSystem;
  /** The workspace root's real path (known once the app has resolved it). */
  root: () => Promise<string>;
  changes: ChangeFeed;
  /** Absolute real folders never listed or searched (the agents' copies). */
  exclude: () => Promise<readonly string[]>;
  /**
   * Every change reaches the change feed: an OS watcher runs, or nothing but this process changes the storage
   * (the memory backend). Without it (`--no-watch` on a disk) the list can lag the disk for ever, so other
   * dialects' exact searches (`search_in_files`) do not let the index rule files out.
   */
  changesAreSeen: boolean;
  now?: () => number;
  /**
   * Who gives way to the queries that walk the disk themselves (./list-gives-way.ts; default: this engine's own,
   * for its file list alone). An app hands one to all its engines and to its watcher's start-up walk.
   */
  walkingQueries?: ListGivesWay;
  /** How many searches are running (the engine's own count; background feeds give way to them). */
  searchesRunning?: () => number;
}

export interface MayHoldMatchScope {
  /** The absolute real path the caller searches (default: the root): a prefilter reads no file outside it. */
  under?: string;
  /** A `Date.now()` time the caller's search ends by: a prefilter past it gives up (undefined). */
  deadlineMs?: number;
  /**
   * Settles when the caller's own search has ended. A prefilter that walked the disk itself keeps the list's
   * first walk waiting until then (./list-gives-way.ts), not only while it reads: the caller walks and reads too.
   */
  searched?: Promise<unknown>;
}

export interface SearchEngine {
  /** One page of a query's answer. Throws WorkspaceError bad-request for a cursor it did not issue for the query. */
  search(request: SearchRequest): Promise<SearchAnswer>;
  /** Starts the file list and the index in the background (the Node server does at start-up; else the first search). */
  start(): void;
  /** The live file list once it answers for the workspace (started and its first walk done), else undefined. */
  readyFileList(): FileList | undefined;
  /**
   * For another dialect's own text search (`search_in_files`): whether a file may hold a match of `query`, as the
   * content index tells — false only for a listed file the index has read at its current version and rules
   * out. While the index is not ready, a prefilter on the scanner's worker threads (./building-prefilter.ts)
   * answers instead, when there is one. Undefined when neither can (or the engine has not started): read every file.
   */
  mayHoldMatch(query: FindQuery, scope?: MayHoldMatchScope): Promise<((absolutePath: string) => boolean) | undefined>;
  /** Resolves once the list, the index and the symbols have caught up (tests, benchmarks). */
  settled(): Promise<void>;
  close(): Promise<void>;
}
