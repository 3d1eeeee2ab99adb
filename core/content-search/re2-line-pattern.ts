/**
 * A regex-mode `search_in_files` query on RE2 (re2js, a pure-JavaScript port: edge-clean). RE2 matches in time
 * linear in the line (times the pattern's size) and never backtracks, so no pattern can freeze the daemon the
 * way `^(a+)+$` does a backtracking engine. It is also the closer match to the original: NoIDE's server is
 * Rust, whose `regex` crate has RE2's syntax and linear-time matching — no backreferences, no lookarounds. A
 * pattern RE2 refuses (those included) is `Invalid search: <RE2's reason>`. `\w`, `\d` and `\s` are Unicode, as
 * in Rust (./unicode-perl-classes.ts).
 *
 * - The line is a JavaScript string, so re2js matches it as UTF-16 and reports UTF-16 code-unit offsets (its
 *   byte APIs would count UTF-8 bytes); its classes and `.` take a surrogate pair as one code point.
 * - `caseSensitive: false` is RE2's case-insensitive flag (Unicode simple case folding, like JavaScript's `iu`).
 *   No multi-line flag: each line is matched on its own, so `^` and `$` are its ends, as in the literal path.
 * - `wholeWord`: RE2 has no lookarounds and its `\b` is ASCII-only, so the pattern is wrapped as
 *   `(?:^|[^WORD])(query)(?:$|[^WORD])` and the match is group 1: the code point before and after must be a
 *   non-word one or the line's end. Because the boundaries are part of the one pattern, RE2 weighs every way
 *   the query can match at a start against them (`a|ab` finds `ab` in "ab c"), and a start whose every way is
 *   rejected is passed over for the next one, so later valid matches on the line are still found — what the
 *   lookaround form `(?<!W)(?:query)(?!W)` of a backtracking engine gives, in linear time. Consuming the
 *   boundary character is why the search resumes one code point before `from`: the character that ended the
 *   previous match may be the one before the next (and `^` is left out there).
 */
import { RE2JS, RE2JSException, type Matcher } from 're2js';
import { WorkspaceError } from '../errors/workspace-error.ts';
import { WORD, type LineMatch, type LinePattern, type PatternOptions } from './line-pattern.ts';
import { unicodePerlClasses } from './unicode-perl-classes.ts';

const NOT_WORD = `[^${WORD.slice(1)}`;

export function compileRe2LinePattern(options: PatternOptions): LinePattern {
  const flags = options.caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE;
  // The user's pattern judged on its own, so the wrapper never shows in a message, and a query such as
  // `a)(b` cannot close the wrapper's group and compile inside it.
  const alone = compile(options.query, flags);
  const mayMatch = wholeTextTest(options.query, flags);
  if (!options.wholeWord) return new PlainPattern(alone, mayMatch);
  const after = `(${options.query})(?:$|${NOT_WORD})`;
  return new WholeWordPattern(compile(`(?:^|${NOT_WORD})${after}`, flags), compile(`${NOT_WORD}${after}`, flags), mayMatch);
}

/**
 * One RE2 test of a whole file, with `^`/`$` at its `\n`s: any match within a line is one there too (a line's
 * edges and the `\n` or `\r` beside them are alike non-word characters for `\b`), so false rules the file
 * out. It costs a fraction of testing each line, and far less where RE2 finds a literal prefix to skip to.
 * Not for a query using `\A`, `\z` or clearing the `m` flag, which tell the file's ends from a line's; and a
 * `$` query not over a text holding `\r`, where a line's end may be before `\r\n`. (Guards read the query
 * text crudely: a false alarm only costs the shortcut.)
 */
function wholeTextTest(query: string, flags: number): ((text: string) => boolean) | undefined {
  if (/\\[Az]|-[a-zA-Z]*m/.test(query)) return undefined;
  // Compiled on first use: a caller that prefilters lines itself never needs it, and a pattern with Unicode
  // classes costs milliseconds to compile.
  let re: RE2JS | undefined;
  const dollar = query.includes('$');
  return (text) => (dollar && text.includes('\r')) || (re ??= RE2JS.compile(unicodePerlClasses(query), flags | RE2JS.MULTILINE)).test(text);
}

/** Matches one line at a time, reusing one Matcher per pattern. */
class LineMatchers {
  private line: string | undefined;
  private readonly matchers = new Map<RE2JS, Matcher>();

  /**
   * The Matcher of `re` over `line`, or undefined when `probe` cannot match anywhere in it: most lines hold
   * no match, and RE2's DFA tells that without building a Matcher (whose captures cost more).
   */
  over(line: string, probe: RE2JS, re: RE2JS): Matcher | undefined {
    if (line !== this.line) {
      if (!probe.test(line)) return undefined;
      this.line = line;
      for (const matcher of this.matchers.values()) matcher.resetMatcherInput(line);
    }
    let matcher = this.matchers.get(re);
    if (matcher === undefined) this.matchers.set(re, (matcher = re.matcher(line)));
    return matcher;
  }
}

class PlainPattern implements LinePattern {
  private readonly lines = new LineMatchers();

  constructor(
    private readonly re: RE2JS,
    readonly mayMatch: ((text: string) => boolean) | undefined,
  ) {}

  next(line: string, from: number): LineMatch | null {
    const matcher = this.lines.over(line, this.re, this.re);
    if (matcher === undefined || !matcher.find(from)) return null;
    return { start: matcher.start(), end: matcher.end() };
  }
}

class WholeWordPattern implements LinePattern {
  private readonly lines = new LineMatchers();

  /**
   * `atStart` (`(?:^|[^WORD])(query)(?:$|[^WORD])`) searches from the line's start; `resume`, without `^`,
   * from the code point before `from` > 0, where `^` must not match: it would let a match start before `from`.
   */
  constructor(
    private readonly atStart: RE2JS,
    private readonly resume: RE2JS,
    readonly mayMatch: ((text: string) => boolean) | undefined,
  ) {}

  next(line: string, from: number): LineMatch | null {
    const matcher = this.lines.over(line, this.atStart, from === 0 ? this.atStart : this.resume);
    if (matcher === undefined || !matcher.find(from === 0 ? 0 : from - codePointLengthBefore(line, from))) return null;
    return { start: matcher.start(1), end: matcher.end(1) };
  }
}

function compile(source: string, flags: number): RE2JS {
  try {
    // Judged as written (so a message quotes the user's pattern), run with Rust's Unicode \w \d \s.
    RE2JS.compile(source, flags);
    return RE2JS.compile(unicodePerlClasses(source), flags);
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    throw new WorkspaceError('bad-request', `Invalid search: ${reasonFor(source, error)}`);
  }
}

/**
 * RE2's reason, e.g. "missing closing ): `(unclosed`": the reason and the offending part are what the user can
 * act on. re2js spells a flag into the pattern (`(?i)(unclosed`), so the reason is the flagless pattern's:
 * flags never make a pattern valid or invalid.
 */
function reasonFor(source: string, error: RE2JSException): string {
  let reason = error.message;
  try {
    RE2JS.compile(source);
  } catch (flagless) {
    if (flagless instanceof RE2JSException) reason = flagless.message;
  }
  return reason.replace(/^error parsing regexp: /, '');
}

function codePointLengthBefore(line: string, at: number): number {
  const low = line.charCodeAt(at - 1);
  const high = line.charCodeAt(at - 2);
  return low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff ? 2 : 1;
}
