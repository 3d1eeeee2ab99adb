import type { ChangeFeed } from '../../core/changes/change-feed.ts';
import type { SearchEngineOptions } from '../../core/search/engine/engine-types.ts';
import { listGivesWay, type ListGivesWay } from '../../core/search/engine/list-gives-way.ts';
import { createSearchEngine, type SearchEngine } from '../../core/search/search-engine.ts';
import type { WorkspaceAppOptions } from './app-options.ts';
import type { FilesPart } from './files.ts';

export interface SearchPart {
  /** The app's engine (started at once with `eager`). */
  search: SearchEngine;
  /** Another engine over the same storage and cursor key (a Workers request's own, runtime/search). */
  makeSearch(extra?: Partial<SearchEngineOptions>): SearchEngine;
  /** Nothing changes the storage behind the change feed's back (default: true with a watcher). */
  changesAreSeen: boolean;
  perRequest: boolean;
  /** What gives way to a query walking the disk (its engines' file lists, the watcher's start-up walk). */
  walkingQueries: ListGivesWay;
}

/** The search engine (core/search, docs/intentic-search.md) over the app's storage and change feed. */
export function buildSearch(options: WorkspaceAppOptions, files: FilesPart, changes: ChangeFeed): SearchPart {
  const { eager, changesAreSeen: changesSaidSeen, perRequest = false, ...adapters } = options.search ?? {};
  const changesAreSeen = changesSaidSeen ?? options.watcher !== undefined;
  // One key for every engine of the app, so a per-request engine honours the cursors of an earlier one.
  const cursorKey = crypto.getRandomValues(new Uint8Array(32));
  const walkingQueries = listGivesWay(Date.now);
  const makeSearch = (extra: Partial<SearchEngineOptions> = {}) =>
    createSearchEngine({
      ...adapters,
      fs: files.fs,
      root: files.rootPath,
      changes,
      changesAreSeen,
      exclude: files.excluded,
      cursorKey,
      walkingQueries,
      ...extra,
    });
  const search = makeSearch();
  if (eager && !perRequest) search.start();
  return { search, makeSearch, changesAreSeen, perRequest, walkingQueries };
}
