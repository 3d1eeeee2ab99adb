/**
 * `find` mode's matcher (docs/intentic-search.md, `find` and "Answer"): a query compiled once, then run over each file's
 * raw bytes. Edge-clean (Web APIs only).
 *
 * - A regex unless `literal`, in the Rust `regex` dialect: RE2 syntax on re2js (linear time whatever the
 *   pattern, so `(a+)+$` over a megabyte line returns promptly). A pattern RE2 refuses runs as literal text
 *   (`ranAsLiteral`). Case-insensitive unless `caseSensitive` (Unicode simple folding); `word` wants no word
 *   character (a letter, mark, digit or `_`, any script) on either side. The line matchers are
 *   core/content-search's (the protocol's `search_in_files` has the same three switches).
 * - Lines split at `\n`, a trailing `\r` dropped, decoded as UTF-8 leniently (invalid bytes → U+FFFD). A leading
 *   UTF-8 BOM is not part of line 1 (ripgrep reads it so: `^foo` finds a file that starts BOM, `foo`). A file holding
 *   a NUL is binary: no hits.
 * - Speed: a file is never decoded unless its bytes hold the literals every match needs (./byte-prefilter.ts);
 *   then only the lines holding them are decoded and matched. Only a query without such literals (`\w+`)
 *   decodes whole files.
 */
import { MAX_HITS_PER_FILE, type Hit, type Span } from '../answer.ts';
import { compileSearchPattern, type LinePattern } from '../../content-search/search-pattern.ts';
import { WorkspaceError } from '../../errors/workspace-error.ts';
import { bytePrefilter, type BytePrefilter } from './byte-prefilter.ts';
import { textWindow } from './line-window.ts';
import { literalRequiredLiterals, regexRequiredLiterals } from './required-literals.ts';

export interface FindQuery {
  pattern: string;
  literal: boolean;
  caseSensitive: boolean;
  word: boolean;
  /**
   * Files holding a NUL are matched too. Never for text answers (they skip binary files); for finding the
   * source files that hold a name, since a source file with a NUL is still parsed for symbols (`def`).
   */
  binary?: boolean;
}

export interface CompiledFind {
  /** The pattern was meant as a regex but does not compile in the Rust `regex` dialect: it runs as literal text. */
  readonly ranAsLiteral: boolean;
  /**
   * Literal text every match must contain, for prefilters and the trigram index: an AND of ORs of strings
   * (e.g. `foo(bar|baz)` → [["foobar","foobaz"]]); [] = no requirement. Exact text (not case-folded), never
   * holding U+FFFD or a lone surrogate; `caseSensitive` tells how to compare (false: Unicode simple case
   * folding, so `k` also stands for U+212A KELVIN SIGN). Sound: a line without them never matches.
   */
  readonly required: readonly (readonly string[])[];
  /** How `required` compares: false also when the query is case-sensitive but its pattern turns `(?i)` on. */
  readonly caseSensitive: boolean;
  /** Whether files holding a NUL are matched too (FindQuery.binary). */
  readonly binary: boolean;
  /** The hits of one file's bytes, or null when it has none or is binary (holds a NUL byte) and not `binary`. */
  matchBytes(bytes: Uint8Array): FileTextMatch | null;
}

/** One file's hits (tags `[{kind: 'text'}]`), at most MAX_HITS_PER_FILE; `capped` if the file had more. */
export interface FileTextMatch {
  hits: Hit[];
  capped: boolean;
}

export function compileFind(query: FindQuery): CompiledFind {
  const options = { query: query.pattern, caseSensitive: query.caseSensitive, wholeWord: query.word };
  if (!query.literal) {
    let pattern: LinePattern | undefined;
    try {
      pattern = compileSearchPattern({ ...options, regex: true });
    } catch (error) {
      if (!(error instanceof WorkspaceError)) throw error; // `Invalid search: …`: runs as literal below
    }
    if (pattern !== undefined) {
      const { required, inlineCaseInsensitive } = regexRequiredLiterals(query.pattern);
      return new CompiledLineFind(pattern, false, required, query.caseSensitive && !inlineCaseInsensitive, query.binary === true);
    }
  }
  const pattern = compileSearchPattern({ ...options, regex: false });
  return new CompiledLineFind(pattern, !query.literal, literalRequiredLiterals(query.pattern), query.caseSensitive, query.binary === true);
}

/**
 * The pattern with the backslash of the grep-style escapes `\| \+ \? \( \) \{ \}` dropped (a `\\` pair stays
 * as it is), or undefined when it has none: `find`'s rerun after zero hits (note `escapes rewritten`).
 */
export function rewriteGrepEscapes(pattern: string): string | undefined {
  let rewritten = false;
  const result = pattern.replace(/\\([\s\S])/g, (pair, char: string) => {
    if (!'|+?(){}'.includes(char)) return pair;
    rewritten = true;
    return char;
  });
  return rewritten ? result : undefined;
}

const TEXT_TAGS = () => [{ kind: 'text' as const }];

class CompiledLineFind implements CompiledFind {
  private readonly prefilter: BytePrefilter | undefined;
  private readonly decoder = new TextDecoder('utf-8', { ignoreBOM: true });

  constructor(
    private readonly pattern: LinePattern,
    readonly ranAsLiteral: boolean,
    readonly required: readonly (readonly string[])[],
    readonly caseSensitive: boolean,
    readonly binary: boolean,
  ) {
    this.prefilter = bytePrefilter(required, caseSensitive);
  }

  matchBytes(file: Uint8Array): FileTextMatch | null {
    // A UTF-8 byte order mark is not text: line 1 starts after it (as ripgrep reads it, so `^x` finds `x`).
    const bytes = file[0] === 0xef && file[1] === 0xbb && file[2] === 0xbf ? file.subarray(3) : file;
    const end = bytes.length;
    if (this.prefilter !== undefined) {
      if (!this.prefilter.fileMayMatch(bytes, end)) return null;
      return this.candidateLines(bytes, this.prefilter);
    }
    if (!this.binary && bytes.indexOf(0) >= 0) return null;
    return this.everyLine(bytes);
  }

  /**
   * Only the lines holding a candidate (and every other clause) are decoded. A candidate line's ends are found
   * around it; line numbers are counted only up to lines that match, so a file whose candidates all fail costs
   * no walk over its newlines.
   */
  private candidateLines(bytes: Uint8Array, prefilter: BytePrefilter): FileTextMatch | null {
    const end = bytes.length;
    const cursor = prefilter.candidates(bytes, end);
    const first = cursor.next(0);
    // The binary check (a NUL anywhere) only for a file that holds a candidate: most files hold none.
    if (first < 0 || (!this.binary && bytes.indexOf(0) >= 0)) return null;
    const collected = new Collected();
    const lines = new LineCounter(bytes);
    for (let at = first; at >= 0; ) {
      const lineStart = at === 0 ? 0 : bytes.lastIndexOf(0x0a, at - 1) + 1;
      const newline = bytes.indexOf(0x0a, at);
      const lineEnd = newline < 0 ? end : newline;
      if (prefilter.lineMayMatch(bytes, lineStart, lineEnd)) {
        const line = this.lineText(bytes, lineStart, lineEnd);
        if (!collected.line(() => lines.numberAt(lineStart), line, this.pattern)) break;
      }
      if (newline < 0) break;
      at = cursor.next(newline + 1);
    }
    return collected.result();
  }

  private everyLine(bytes: Uint8Array): FileTextMatch | null {
    const text = this.decoder.decode(bytes);
    if (this.pattern.mayMatch && !this.pattern.mayMatch(text)) return null;
    const collected = new Collected();
    for (let lineStart = 0, lineNumber = 1; ; lineNumber++) {
      const newline = text.indexOf('\n', lineStart);
      const lineEnd = newline < 0 ? text.length : newline;
      const line = lineEnd > lineStart && text.charCodeAt(lineEnd - 1) === 0x0d ? text.slice(lineStart, lineEnd - 1) : text.slice(lineStart, lineEnd);
      const number = lineNumber;
      if (!collected.line(() => number, line, this.pattern) || newline < 0) break;
      lineStart = newline + 1;
    }
    return collected.result();
  }

  private lineText(bytes: Uint8Array, start: number, end: number): string {
    const stop = end > start && bytes[end - 1] === 0x0d ? end - 1 : end;
    return this.decoder.decode(bytes.subarray(start, stop));
  }
}

/** The hits kept so far: at most MAX_HITS_PER_FILE, and whether a further matching line was seen. */
class Collected {
  private readonly hits: Hit[] = [];
  private capped = false;

  /** Adds the line if it matches; false once the file is known to be capped (stop reading). */
  line(lineNumber: () => number, line: string, pattern: LinePattern): boolean {
    const spans = lineSpans(line, pattern);
    if (spans.length === 0) return true;
    if (this.hits.length === MAX_HITS_PER_FILE) {
      this.capped = true;
      return false;
    }
    this.hits.push({ line: lineNumber(), ...textWindow(line, spans), tags: TEXT_TAGS() });
    return true;
  }

  result(): FileTextMatch | null {
    return this.hits.length === 0 ? null : { hits: this.hits, capped: this.capped };
  }
}

/**
 * Line numbers of offsets asked in ascending order: the `\n`s are counted from the last offset asked, with the
 * native `indexOf` (twice as fast as a byte loop on source text).
 */
class LineCounter {
  private counted = 0;
  private number = 1;

  constructor(private readonly bytes: Uint8Array) {}

  /** The 1-based number of the line starting at `lineStart` (≥ every offset asked before). */
  numberAt(lineStart: number): number {
    const bytes = this.bytes;
    for (let at = bytes.indexOf(0x0a, this.counted); at >= 0 && at < lineStart; at = bytes.indexOf(0x0a, at + 1)) this.number++;
    this.counted = lineStart;
    return this.number;
  }
}

/** Every non-empty match on the line, in order (an empty match is stepped over by one code point). */
function lineSpans(line: string, pattern: LinePattern): Span[] {
  const spans: Span[] = [];
  for (let from = 0; from <= line.length; ) {
    const match = pattern.next(line, from);
    if (match === null) break;
    if (match.end > match.start) {
      spans.push({ start: match.start, end: match.end });
      from = match.end;
    } else {
      const code = line.charCodeAt(match.start);
      from = match.start + (code >= 0xd800 && code <= 0xdbff && isLow(line.charCodeAt(match.start + 1)) ? 2 : 1);
    }
  }
  return spans;
}

function isLow(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
