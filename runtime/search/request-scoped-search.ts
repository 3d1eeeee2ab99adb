/**
 * Search on a runtime that keeps no work alive between requests: Cloudflare Workers cancels whatever a request
 * left running once its response is sent (timers, and the continuations of promises it created), so a file list
 * walked, or an index built, in the background of one request is dead — or throws "Cannot perform I/O on behalf
 * of a different request" — in the next. There each request that searches gets an engine of its own: made on its
 * first use, settled (list, prose, symbols) before it answers, and closed with the request. The workspace there is
 * a small in-memory one, so walking it per request costs little, and there is no trigram index to build: every
 * query scans. Cursors stay valid from one request to the next: every engine signs with the app's one key.
 */
import type { SearchEngine } from '../../core/search/search-engine.ts';

export interface RequestScopedSearch {
  /** What the request's context carries as `search`. */
  readonly engine: SearchEngine;
  /** Closes the request's engine, if it made one. */
  close(): Promise<void>;
}

export function requestScopedSearch(make: () => SearchEngine): RequestScopedSearch {
  let made: SearchEngine | undefined;
  const engine = () => (made ??= make());
  return {
    engine: {
      async search(request) {
        const scoped = engine();
        await scoped.settled(); // nothing may be left to finish after the response
        return scoped.search(request);
      },
      start() {}, // nothing starts ahead of a request here
      // Neither the live list nor the index outlives a request: the other dialects walk and read themselves.
      readyFileList: () => undefined,
      mayHoldMatch: async () => undefined,
      settled: async () => await made?.settled(),
      close: async () => await made?.close(),
    },
    close: async () => await made?.close(),
  };
}
