/**
 * The search engine (the wire rules are docs/intentic-search.md): one engine behind Intentic's
 * `/workspace/search`, ori's `/api/files/search` (the live file list) and the protocol's `search_in_files`.
 * Edge-clean: the FileSystem and Web APIs; worker threads, the disk cache and the WASM parsers arrive as adapters.
 *
 * Its parts, each its own module:
 * - ./file-list: every file of the workspace, kept current by the change feed (ignore-aware).
 * - ./content-index: trigram posting lists over the searchable text files; a query gets a superset of the files
 *   that can match, which the scanner then verifies against the bytes (no false positives). While the first
 *   build runs, queries are answered by a full scan (worker threads on Node): `freshness` says which.
 * - ./text: the `find` matcher (RE2 dialect, literal, case, word; spans and windows) and the scanners.
 * - ./symbols: tree-sitter definitions, refs, context and `ast`.
 * - ./prose: BM25 over identifier-split tokens, optional embeddings, the `q` classifier and rank fusion.
 * - ./query: paging, cursors, the answer's shape; ./modes: one file per mode.
 *
 * Started lazily by the first search (or eagerly by the Node server), so an app that never searches never walks.
 */
export type { SearchEngine, SearchEngineOptions } from './engine/engine-types.ts';
export { createSearchEngine } from './engine/create-search-engine.ts';
