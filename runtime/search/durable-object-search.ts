/**
 * Search in a Durable Object (docs/architecture.md#cloudflare-workers): what `runtime/worker/workspace-object.ts`
 * passes as `createWorkspaceApp`'s `search` option, with the object's own `ctx.storage`.
 *
 * One engine per object, living as long as the object does — not one per request (./request-scoped-search.ts).
 * A stateless Worker cancels what a request leaves running, but a Durable Object does not: its requests share one
 * I/O context, so the engine's file list, its index's background updates and its change-feed subscription carry
 * on from one request to the next (test/adapters/search/durable-object-search.test.ts checks it in workerd). Every
 * write goes through the app, whose change feed tells the engine (`changesAreSeen`), so the index follows each
 * write and `search_in_files` may trust it.
 *
 * What an object loses when it is evicted (idle, a deployment) it finds in its SQLite storage, beside the files:
 * - the trigram index (adapters/search/sql-index-store.ts): the manifest and shards the Node daemon caches on disk;
 *   a restart re-reads only files whose version differs from the stored manifest, at most `indexDeltaFiles` of
 *   them (changes not yet in a stored shard);
 * - each file's definitions and prose terms (adapters/search/sql-file-facts-store.ts), which the engine otherwise
 *   re-derives from every file before `sym` or prose can answer.
 *
 * `settleFirst`: each search waits until the engine has caught up (the first one after a start: the walk and the
 * loading of all three; the very first in a workspace's life: building them, reading every file once), so answers
 * are whole, as the per-request scan's were: never `building` nor `stale` (`freshness` is `fresh` with `ageMs: 0`,
 * docs/intentic-search.md#freshness). They are the scan's answers, but where a background part reaches its memory
 * cap (the prose index's 16 MiB, 20 000 background symbols): which files it then holds depends on the order the
 * changes came in, as on Node. `search_in_files` waits for the engine within half its own budget, else reads
 * every file as before.
 *
 * `compactIndex`: an isolate has 128 MB and counts every allocated byte; the Node build's dense scratch tables
 * (~290 MiB, untouched pages free on Node) would not fit (core/search/content-index/trigrams.ts).
 */
import type { DurableObjectSqlStorage } from '../../adapters/fs/durable-object-file-system.ts';
import { proseCodec, SqlFileFactsStore, symbolsCodec } from '../../adapters/search/sql-file-facts-store.ts';
import { SqlIndexStore } from '../../adapters/search/sql-index-store.ts';
import { TERMS_FORMAT } from '../../core/search/prose/tokens.ts';
import { HEURISTIC_SYMBOLS_FORMAT } from '../../core/search/symbols/heuristic-symbols.ts';
import type { WorkspaceAppOptions } from '../app/app-options.ts';

/**
 * Changed files the index keeps in memory before storing them as a shard (with a new manifest): an object may be
 * evicted without notice, and a restart re-reads what was only in memory. Each flush rewrites the manifest (~50
 * bytes a file), so not every write.
 */
const INDEX_DELTA_FILES = 64;

export function durableObjectSearch(storage: DurableObjectSqlStorage): NonNullable<WorkspaceAppOptions['search']> {
  return {
    indexStore: new SqlIndexStore(storage),
    indexDeltaFiles: INDEX_DELTA_FILES,
    compactIndex: true,
    // Workers has no WASM parsers: definitions come from the line heuristics, and are stored as theirs.
    symbolStore: new SqlFileFactsStore(storage, { table: 'search_symbols', format: `heuristic-${HEURISTIC_SYMBOLS_FORMAT}`, codec: symbolsCodec }),
    proseStore: new SqlFileFactsStore(storage, { table: 'search_prose', format: `terms-${TERMS_FORMAT}`, codec: proseCodec }),
    changesAreSeen: true,
    settleFirst: true,
  };
}
