/**
 * A plain (not regex) query as a LinePattern: JavaScript RegExps with every syntax character escaped. A literal
 * has no repetition to backtrack over, so V8's engine is linear on it, and its literal search is the fastest
 * there is (bench/content-search.bench.ts). The `u` flag: offsets never split a surrogate pair, and
 * case-insensitivity folds beyond ASCII (Unicode simple case folding).
 *
 * V8 compiles a RegExp only up to a size: a case-insensitive literal of ~20 000 characters is "too large", and
 * testing a long one can overflow its stack. So a literal longer than PIECE_LENGTH is cut into pieces: the
 * first is searched for, and each next one must follow at once (a sticky RegExp). Under `i` a literal's code
 * point matches exactly one code point, so the whole literal matches at a place exactly when its pieces match
 * there end to end: the same matches one RegExp would find, whatever the query's length.
 */
import { WORD, type LineMatch, type LinePattern, type PatternOptions } from './line-pattern.ts';

/** Code units per piece: far below V8's limit for any text (it was reached at ~20 000 case-insensitive). */
export const PIECE_LENGTH = 1000;

export function compileLiteralLinePattern(options: PatternOptions, pieceLength = PIECE_LENGTH): LinePattern {
  const pieces = cutIntoPieces(options.query, pieceLength).map(escapeRegExp);
  const flags = options.caseSensitive ? 'u' : 'iu';
  // One character on each side, never a repetition: still linear.
  const before = options.wholeWord ? `(?<!${WORD})` : '';
  const after = options.wholeWord ? `(?!${WORD})` : '';
  if (pieces.length === 1) return new OneRegExp(new RegExp(before + pieces[0]! + after, `g${flags}`));
  const rest = pieces.slice(1);
  return new PiecedLiteral(
    new RegExp(before + pieces[0]!, `g${flags}`),
    rest.map((piece, i) => new RegExp(i === rest.length - 1 ? piece + after : piece, `y${flags}`)),
  );
}

class OneRegExp implements LinePattern {
  private readonly anywhere: RegExp;

  constructor(private readonly pattern: RegExp) {
    this.anywhere = new RegExp(pattern.source, pattern.flags.replace('g', ''));
  }

  next(line: string, from: number): LineMatch | null {
    this.pattern.lastIndex = from;
    const match = this.pattern.exec(line);
    return match === null ? null : { start: match.index, end: match.index + match[0].length };
  }

  readonly mayMatch = (text: string): boolean => this.anywhere.test(text);
}

class PiecedLiteral implements LinePattern {
  private readonly anywhere: RegExp;

  constructor(
    private readonly first: RegExp,
    private readonly following: readonly RegExp[],
  ) {
    this.anywhere = new RegExp(first.source, first.flags.replace('g', ''));
  }

  next(line: string, from: number): LineMatch | null {
    for (let at = from; at <= line.length; ) {
      this.first.lastIndex = at;
      const head = this.first.exec(line);
      if (head === null) return null;
      const end = this.followsFrom(line, head.index + head[0].length);
      if (end >= 0) return { start: head.index, end };
      // Not here: the next start is one code point on (a `u` RegExp would read a lastIndex inside a surrogate
      // pair as the pair's start, and find this place again).
      at = head.index + codePointLength(line, head.index);
    }
    return null;
  }

  /** Every match holds the first piece: a text without it holds no match. */
  readonly mayMatch = (text: string): boolean => this.anywhere.test(text);

  /** Where the following pieces end when they match end to end from `at`, else -1. */
  private followsFrom(line: string, at: number): number {
    let end = at;
    for (const piece of this.following) {
      piece.lastIndex = end;
      const match = piece.exec(line);
      if (match === null) return -1;
      end += match[0].length;
    }
    return end;
  }
}

/** `text` in pieces of at most `length` code units (at least one), never splitting a surrogate pair. */
function cutIntoPieces(text: string, length: number): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length || pieces.length === 0; ) {
    let end = Math.min(text.length, start + length);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1)) && isLowSurrogate(text.charCodeAt(end))) {
      end += end - 1 > start ? -1 : 1;
    }
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

function codePointLength(text: string, at: number): number {
  return isHighSurrogate(text.charCodeAt(at)) && isLowSurrogate(text.charCodeAt(at + 1)) ? 2 : 1;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
