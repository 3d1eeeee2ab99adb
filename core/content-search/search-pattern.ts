/**
 * A `search_in_files` query compiled to a LinePattern (docs/noide-protocol.md#search_in_files: `query`, `caseSensitive?` default
 * false, `wholeWord?`, `regex?`). Each line is matched on its own, so `^` and `$` are the line's ends.
 *
 * - A plain query is matched literally: a JavaScript RegExp with every syntax character escaped. A literal
 *   has no repetition to backtrack over, so V8's engine is linear on it, and its literal search is the fastest
 *   there is (bench/content-search.bench.ts). The `u` flag: offsets never split a surrogate pair, and
 *   case-insensitivity folds beyond ASCII.
 * - A regex query runs on RE2 (./re2-line-pattern.ts): linear time whatever the pattern. A backtracking
 *   engine takes hours on `^(a+)+$` against 40 `a`s and a `!`, and one RegExp#exec cannot be interrupted —
 *   it would freeze every socket, terminal and route of the daemon, past any time budget.
 * - `wholeWord` wants no word character (a letter, digit, mark or `_`, in any script) right before or after
 *   the match. JavaScript's `\b` and RE2's `\b` know ASCII words only, so it is spelt out with WORD.
 */
import { WORD, type LinePattern, type PatternOptions } from './line-pattern.ts';
import { compileRe2LinePattern } from './re2-line-pattern.ts';

export type { LineMatch, LinePattern, PatternOptions } from './line-pattern.ts';

/** Throws `Invalid search: <the engine's reason>` (WorkspaceError bad-request) for a regex that does not compile. */
export function compileSearchPattern(options: PatternOptions): LinePattern {
  return options.regex ? compileRe2LinePattern(options) : literalPattern(options);
}

function literalPattern(options: PatternOptions): LinePattern {
  const source = escapeRegExp(options.query);
  const flags = options.caseSensitive ? 'gu' : 'giu';
  // One character on each side, never a repetition: still linear.
  const pattern = new RegExp(options.wholeWord ? `(?<!${WORD})${source}(?!${WORD})` : source, flags);
  const anywhere = new RegExp(pattern.source, flags.replace('g', ''));
  return {
    next(line, from) {
      pattern.lastIndex = from;
      const match = pattern.exec(line);
      return match === null ? null : { start: match.index, end: match.index + match[0].length };
    },
    mayMatch: (text) => anywhere.test(text),
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}
