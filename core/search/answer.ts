/**
 * The answer of `GET /workspace/search` (docs/intentic-search.md#answer), as the engine builds it.
 * Optional keys are omitted, never `null`. Every engine module speaks these hit shapes, so the query layer
 * (./query) only pages and fuses.
 */

export type SearchMode = 'q' | 'find' | 'files' | 'def' | 'refs' | 'sym' | 'ast';

/**
 * Why a hit matched, one per kind, always listed in this order (TAG_ORDER). `score` (0..1, two decimals) only on
 * `fuzzy`, `bm25`, `sem`, `rerank`.
 */
export type TagKind =
  | 'def'
  | 'path'
  | 'fuzzy'
  | 'rerank'
  | 'sem'
  | 'bm25'
  | 'import'
  | 'call'
  | 'type'
  | 'write'
  | 'text'
  | 'heuristic';

export const TAG_ORDER: readonly TagKind[] = [
  'def', 'path', 'fuzzy', 'rerank', 'sem', 'bm25', 'import', 'call', 'type', 'write', 'text', 'heuristic',
];

export interface Tag {
  kind: TagKind;
  score?: number;
}

/** A match inside `text`, as UTF-16 offsets: `text.slice(start, end)` is the match. */
export interface Span {
  start: number;
  end: number;
}

export interface Hit {
  /** 1-based line number. */
  line: number;
  /** The line (or its 200-character window, for a text match on a longer line). */
  text: string;
  spans: Span[];
  tags: Tag[];
  /** The enclosing symbol as `name (kind)`, on find/q/refs hits inside a symbol that are not its definition. */
  context?: string;
}

export interface Group {
  /** Root-relative with '/'. */
  path: string;
  score: number;
  /** In line order, one per matching line. */
  hits: Hit[];
  /** The file had more than 50 matching lines; the first 50 are kept. */
  capped?: boolean;
}

export interface Freshness {
  state: 'fresh' | 'building' | 'stale';
  ageMs?: number;
  progress?: number;
  behind?: number;
}

export interface SearchAnswer {
  mode: SearchMode;
  total: number;
  files: number;
  shown: number;
  groups: Group[];
  freshness: Freshness;
  truncated: boolean;
  partial?: true;
  cursor?: string;
  hint?: string;
  note?: string;
  related?: string[];
  candidates?: string[];
  features?: string[];
}

/** Most matching lines kept per file (docs/intentic-search.md: `capped`). */
export const MAX_HITS_PER_FILE = 50;
/** A page never holds more hits than this, unless its first group alone does. */
export const MAX_HITS_PER_PAGE = 1000;
/** Files per page: the default and the cap of `limit`. */
export const MAX_GROUPS_PER_PAGE = 300;
/** Text matching skips files over this many bytes (1 MiB). */
export const MAX_SEARCHED_FILE_BYTES = 1024 * 1024;

/** Rounds a score to two decimals, as tags carry them. */
export function tagScore(value: number): number {
  return Math.round(Math.min(1, Math.max(0, value)) * 100) / 100;
}
