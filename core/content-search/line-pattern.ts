/** What core/content-search matches a line with (./search-pattern.ts compiles a query to it). */

/** A word character in any script, for `wholeWord`: the same class in JavaScript and RE2 syntax. */
export const WORD = String.raw`[\p{L}\p{M}\p{N}_]`;

export interface PatternOptions {
  query: string;
  caseSensitive?: boolean;
  wholeWord?: boolean;
  regex?: boolean;
}

/** A match: UTF-16 code units within the line, `end` exclusive. */
export interface LineMatch {
  start: number;
  end: number;
}

export interface LinePattern {
  /** The leftmost match in `line` that starts at or after `from` (a code-point boundary ≤ line.length). */
  next(line: string, from: number): LineMatch | null;
  /**
   * Whether any line of `text` (a whole file) can match: false rules the file out. Only where one linear test
   * of the whole text can tell without missing a match; absent otherwise.
   */
  readonly mayMatch?: (text: string) => boolean;
}

