/**
 * A `search_in_files` query as one JavaScript regular expression (seeds/README.md §002: `query`,
 * `caseSensitive?` default false, `wholeWord?`, `regex?`).
 *
 * - Always the `u` flag: Unicode-aware like the original's engine, so `.` and offsets never split a surrogate
 *   pair, `\p{…}` works, and case-insensitivity folds beyond ASCII.
 * - A plain query is matched literally (every syntax character escaped).
 * - `wholeWord` wants no word character (a letter, digit, mark or `_`, in any script) right before or after
 *   the match. JavaScript's `\b` knows ASCII words only, so it is spelt with lookarounds.
 * - A pattern that does not compile is `Invalid search: <the engine's reason>`, the user's pattern judged on
 *   its own (the whole-word wrapper never shows up in the message).
 */
import { WorkspaceError } from '../../runtime/errors/workspace-error.ts';

const WORD = String.raw`[\p{L}\p{M}\p{N}_]`;

export interface PatternOptions {
  query: string;
  caseSensitive?: boolean;
  wholeWord?: boolean;
  regex?: boolean;
}

export function compileSearchPattern(options: PatternOptions): RegExp {
  const flags = options.caseSensitive ? 'gu' : 'giu';
  const source = options.regex ? options.query : escapeRegExp(options.query);
  try {
    new RegExp(source, flags);
  } catch (error) {
    throw invalidSearch(error);
  }
  return options.wholeWord ? new RegExp(`(?<!${WORD})(?:${source})(?!${WORD})`, flags) : new RegExp(source, flags);
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

function invalidSearch(error: unknown): WorkspaceError {
  const message = error instanceof Error ? error.message : String(error);
  // V8: "Invalid regular expression: /(/gu: Unterminated group" — the reason is what the user can act on.
  const reason = message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '');
  return new WorkspaceError('bad-request', `Invalid search: ${reason}`);
}
