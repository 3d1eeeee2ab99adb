/**
 * One `/workspace/search` query as the engine takes it: already validated (handlers/workspace/search.ts parses
 * the wire with zod), defaults applied.
 */
import type { SearchMode } from '../answer.ts';

export interface SearchRequest {
  /** 2–512 UTF-16 code units, used as sent (untrimmed). */
  readonly query: string;
  readonly mode: SearchMode;
  readonly includeIgnored: boolean;
  /** The last three only change `find`. */
  readonly literal: boolean;
  readonly word: boolean;
  readonly caseSensitive: boolean;
  /** docs/intentic-search.md's include grammar, ≤ 512 characters; absent: every file. */
  readonly include?: string;
  /** Files per page, 1..300. */
  readonly limit: number;
  /** The cursor of an earlier page of this same query. */
  readonly after?: string;
}

/** What makes two requests the same query: everything but the page (`limit` and `after`). */
export function queryIdentity(request: SearchRequest): string {
  return JSON.stringify([
    request.query,
    request.mode,
    request.includeIgnored,
    request.literal,
    request.word,
    request.caseSensitive,
    request.include ?? null,
  ]);
}
