/**
 * A `search_in_files` query compiled to a LinePattern (docs/noide-protocol.md#search_in_files: `query`, `caseSensitive?` default
 * false, `wholeWord?`, `regex?`). Each line is matched on its own, so `^` and `$` are the line's ends.
 *
 * - A plain query is matched literally (./literal-line-pattern.ts): JavaScript RegExps with every syntax
 *   character escaped, linear on a literal and the fastest search there is; of any length.
 * - A regex query runs on RE2 (./re2-line-pattern.ts): linear time whatever the pattern. A backtracking
 *   engine takes hours on `^(a+)+$` against 40 `a`s and a `!`, and one RegExp#exec cannot be interrupted —
 *   it would freeze every socket, terminal and route of the daemon, past any time budget.
 * - `wholeWord` wants no word character (a letter, digit, mark or `_`, in any script) right before or after
 *   the match. JavaScript's `\b` and RE2's `\b` know ASCII words only, so it is spelt out with WORD.
 */
import type { LinePattern, PatternOptions } from './line-pattern.ts';
import { compileLiteralLinePattern } from './literal-line-pattern.ts';
import { compileRe2LinePattern } from './re2-line-pattern.ts';

export type { LineMatch, LinePattern, PatternOptions } from './line-pattern.ts';

/** Throws `Invalid search: <the engine's reason>` (WorkspaceError bad-request) for a regex that does not compile. */
export function compileSearchPattern(options: PatternOptions): LinePattern {
  return options.regex ? compileRe2LinePattern(options) : compileLiteralLinePattern(options);
}
