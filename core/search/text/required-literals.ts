/**
 * The literal text every match of a regex must contain (an AND of ORs of strings), for the byte prefilter
 * (./byte-prefilter.ts) and the trigram index (core/search/content-index/plan.ts). The approach of Russ Cox's
 * Google Code Search (codesearch `regexp/match.go`): each node of the parsed pattern is summarised either by the
 * small set of strings it matches exactly, or by the literals any of its matches contains; concatenation crosses
 * exact sets, alternation unions them, repetition keeps what one occurrence needs.
 *
 * It must be SOUND, never clever: a line without the literals must never match. So this reads only the RE2 syntax
 * it understands and answers "no requirement" ([]) for anything else; the pattern has already compiled in RE2
 * (../text/find-query.ts), so an odd construct is rare and costs only the shortcut, never a match. Character
 * classes, `.`, `\d`-style escapes and `\p{…}` match "something", so they end a literal.
 *
 * Strings are exact text; a case-insensitive search compares them under Unicode simple case folding. A string
 * never holds U+FFFD or a lone surrogate: invalid UTF-8 in a file decodes to U+FFFD, so those characters cannot
 * be looked for as bytes (such a string is cut there and its longest piece kept).
 */

/** An AND of clauses, each an OR of strings. [] = no requirement. */
export type RequiredLiterals = string[][];

/** Exact sets larger than this are summarised as requirements instead. */
const MAX_EXACT = 16;
/** Most alternatives in one clause (an OR of more restricts too little to be worth a prefilter). */
const MAX_ALTERNATIVES = 16;
/** Most clauses kept (the longest ones). */
const MAX_CLAUSES = 8;

interface Info {
  /** Every string the node can match, when known and small; may hold "" (the node can match empty). */
  exact: Set<string> | null;
  /** Literals every match contains (only meaningful when exact is null; otherwise exact says more). */
  required: RequiredLiterals;
}

const ANYTHING: Info = { exact: null, required: [] };
const EMPTY: Info = { exact: new Set(['']), required: [] };

export interface RegexLiteralAnalysis {
  required: RequiredLiterals;
  /** The pattern turns case-insensitivity on inline (`(?i)`, `(?i:…)`): its literals must be compared folded. */
  inlineCaseInsensitive: boolean;
}

/** The literals every match of `pattern` (RE2 syntax, already known to compile) contains. */
export function regexRequiredLiterals(pattern: string): RegexLiteralAnalysis {
  const parser = new Parser(pattern);
  try {
    const info = parser.alternation();
    if (parser.at < pattern.length) return { required: [], inlineCaseInsensitive: parser.sawCaseFlag };
    return { required: finish(toRequired(info)), inlineCaseInsensitive: parser.sawCaseFlag };
  } catch (error) {
    if (error instanceof Unsupported) return { required: [], inlineCaseInsensitive: true };
    throw error;
  }
}

/** A literal pattern's requirement: the text itself (cut at characters that cannot be searched as bytes). */
export function literalRequiredLiterals(text: string): RequiredLiterals {
  return finish([[text]]);
}

class Unsupported extends Error {}

class Parser {
  at = 0;
  sawCaseFlag = false;

  constructor(private readonly source: string) {}

  alternation(): Info {
    let info = this.concatenation();
    while (this.source[this.at] === '|') {
      this.at++;
      info = alternate(info, this.concatenation());
    }
    return info;
  }

  /**
   * Adjacent exact items are crossed into longer strings first (`ab` `c+` `de` → "ab", "c", "de"), so a
   * requirement keeps whole runs of text rather than single characters.
   */
  private concatenation(): Info {
    const items: Info[] = [];
    for (;;) {
      const char = this.source[this.at];
      if (char === undefined || char === '|' || char === ')') break;
      items.push(this.repetition(this.atom()));
    }
    const merged: Info[] = [];
    for (const item of items) {
      const previous = merged.at(-1);
      if (previous?.exact && item.exact && previous.exact.size * item.exact.size <= MAX_EXACT) merged[merged.length - 1] = concat(previous, item);
      else merged.push(item);
    }
    if (merged.length === 0) return EMPTY;
    if (merged.length === 1) return merged[0]!;
    return { exact: null, required: merged.flatMap(toRequired) };
  }

  private repetition(atom: Info): Info {
    let info = atom;
    for (;;) {
      const char = this.source[this.at];
      let min: number;
      let max: number;
      if (char === '*') [min, max] = [0, Infinity];
      else if (char === '?') [min, max] = [0, 1];
      else if (char === '+') [min, max] = [1, Infinity];
      else if (char === '{') {
        const repeat = /^\{(\d+)(?:(,)(\d*))?\}/.exec(this.source.slice(this.at));
        if (repeat === null) return info; // a `{` that is not a repeat is a literal, read as the next atom
        min = Number(repeat[1]);
        max = repeat[2] === undefined ? min : repeat[3] === '' ? Infinity : Number(repeat[3]);
        this.at += repeat[0].length - 1;
      } else return info;
      this.at++;
      if (this.source[this.at] === '?') this.at++; // lazy: matches the same strings
      if (min === 0) info = max === 1 && info.exact ? { exact: new Set([...info.exact, '']), required: [] } : ANYTHING;
      // x{1} is x; x+ and x{n,…} contain at least one x, whatever it matched.
      else if (max !== 1) info = { exact: null, required: toRequired(info) };
    }
  }

  private atom(): Info {
    const char = this.source[this.at]!;
    switch (char) {
      case '(':
        return this.group();
      case '[':
        this.skipClass();
        return ANYTHING;
      case '.':
        this.at++;
        return ANYTHING;
      case '^':
      case '$':
        this.at++;
        return EMPTY;
      case '\\':
        return this.escape();
      case '*':
      case '+':
      case '?':
        throw new Unsupported(); // a repetition with nothing before it: RE2 refuses it, so never reached
      default: {
        const point = this.source.codePointAt(this.at)!;
        const text = String.fromCodePoint(point);
        this.at += text.length;
        return literal(text);
      }
    }
  }

  private group(): Info {
    this.at++; // (
    if (this.source[this.at] === '?') {
      const named = /^\?P?<[A-Za-z0-9_]+>/.exec(this.source.slice(this.at));
      if (named !== null) this.at += named[0].length;
      else {
        const flags = /^\?(-?[imsU]+(?:-[imsU]*)?|[imsU]*-[imsU]+)?([:)])/.exec(this.source.slice(this.at));
        if (flags === null) throw new Unsupported();
        if (flags[1]?.includes('i')) this.sawCaseFlag = true;
        this.at += flags[0].length;
        if (flags[2] === ')') return EMPTY; // `(?i)` sets flags for the rest of the group: matches nothing itself
      }
    }
    const inner = this.alternation();
    if (this.source[this.at] !== ')') throw new Unsupported();
    this.at++;
    return inner;
  }

  private escape(): Info {
    const next = this.source[this.at + 1];
    if (next === undefined) throw new Unsupported();
    if (next === 'Q') {
      const end = this.source.indexOf('\\E', this.at + 2);
      const text = this.source.slice(this.at + 2, end < 0 ? undefined : end);
      this.at = end < 0 ? this.source.length : end + 2;
      return literalRun(text);
    }
    this.at += 2;
    if ('bBAz'.includes(next)) return EMPTY;
    if ('dDsSwWC'.includes(next)) return ANYTHING;
    if (next === 'p' || next === 'P') {
      if (this.source[this.at] === '{') {
        const close = this.source.indexOf('}', this.at);
        if (close < 0) throw new Unsupported();
        this.at = close + 1;
      } else this.at++;
      return ANYTHING;
    }
    const controls: Record<string, string> = { a: '\x07', f: '\f', t: '\t', n: '\n', r: '\r', v: '\v' };
    if (controls[next] !== undefined) return literal(controls[next]);
    if (next === 'x') {
      const hex = /^(?:\{([0-9A-Fa-f]+)\}|([0-9A-Fa-f]{2}))/.exec(this.source.slice(this.at));
      if (hex === null) throw new Unsupported();
      this.at += hex[0].length;
      return literal(String.fromCodePoint(parseInt(hex[1] ?? hex[2]!, 16)));
    }
    if (next >= '0' && next <= '7') {
      const octal = /^[0-7]{0,2}/.exec(this.source.slice(this.at))![0];
      this.at += octal.length;
      return literal(String.fromCodePoint(parseInt(next + octal, 8)));
    }
    if (/[A-Za-z0-9]/.test(next)) throw new Unsupported(); // an escape this reader does not know
    return literal(next); // escaped punctuation stands for itself
  }

  /** Steps over `[…]`: a leading `^`, a `]` right after the bracket, `[:name:]`, and escapes. */
  private skipClass(): void {
    this.at++;
    if (this.source[this.at] === '^') this.at++;
    if (this.source[this.at] === ']') this.at++;
    while (this.at < this.source.length) {
      const char = this.source[this.at];
      if (char === ']') {
        this.at++;
        return;
      }
      if (char === '\\') {
        if (this.source[this.at + 1] === 'Q') throw new Unsupported(); // `\Q…\E` may hold a `]`
        this.at += 2;
      } else if (char === '[' && this.source[this.at + 1] === ':') {
        const close = this.source.indexOf(':]', this.at + 2);
        if (close < 0) throw new Unsupported();
        this.at = close + 2;
      } else this.at++;
    }
    throw new Unsupported();
  }
}

function literal(char: string): Info {
  return { exact: new Set([char]), required: [] };
}

/** A `\Q…\E` run: one exact string (code points kept whole). */
function literalRun(text: string): Info {
  return { exact: new Set([text]), required: [] };
}

function concat(a: Info, b: Info): Info {
  if (a.exact && b.exact && a.exact.size * b.exact.size <= MAX_EXACT) {
    const exact = new Set<string>();
    for (const x of a.exact) for (const y of b.exact) exact.add(x + y);
    return { exact, required: [] };
  }
  return { exact: null, required: [...toRequired(a), ...toRequired(b)] };
}

function alternate(a: Info, b: Info): Info {
  if (a.exact && b.exact && a.exact.size + b.exact.size <= MAX_EXACT) return { exact: new Set([...a.exact, ...b.exact]), required: [] };
  // (A1 ∧ A2) ∨ (B1 ∧ B2) implies every (Ai ∨ Bj): distribute, keeping only the clauses that stay small.
  const required: RequiredLiterals = [];
  for (const left of toRequired(a)) {
    for (const right of toRequired(b)) {
      const clause = [...new Set([...left, ...right])];
      if (clause.length <= MAX_ALTERNATIVES) required.push(clause);
    }
  }
  return { exact: null, required };
}

/** What every match of the node contains, as clauses; an exact set becomes one clause (unless it holds ""). */
function toRequired(info: Info): RequiredLiterals {
  if (info.exact === null) return info.required;
  if (info.exact.has('') || info.exact.size > MAX_ALTERNATIVES) return [];
  return [[...info.exact]];
}

/**
 * The final clauses: each string cut to the longest piece without U+FFFD or a lone surrogate (a piece of a
 * required string is required too), a clause with an empty alternative dropped (it requires nothing),
 * duplicates removed, the longest (most selective) clauses first.
 */
function finish(required: RequiredLiterals): RequiredLiterals {
  const clauses = new Map<string, string[]>();
  for (const clause of withCommonParts(required)) {
    const pieces = [...new Set(clause.map(searchablePiece))].sort();
    if (pieces.length === 0 || pieces.some((piece) => piece === '')) continue;
    clauses.set(JSON.stringify(pieces), pieces);
  }
  const shortest = (clause: string[]) => Math.min(...clause.map((piece) => piece.length));
  return [...clauses.values()].sort((a, b) => shortest(b) - shortest(a) || a.length - b.length).slice(0, MAX_CLAUSES);
}

/**
 * Each clause of several alternatives also yields their longest common substring as a clause of its own
 * (`spin_lock_irq(save)?\(` → "spin_lock_irq"): one needle rules a file out in one pass where an OR needs one
 * pass per alternative.
 */
function withCommonParts(required: RequiredLiterals): RequiredLiterals {
  const extra: RequiredLiterals = [];
  for (const clause of required) {
    if (clause.length < 2) continue;
    const common = longestCommonSubstring(clause);
    if (common.length >= MIN_COMMON) extra.push([common]);
  }
  return [...required, ...extra];
}

const MIN_COMMON = 3;

function longestCommonSubstring(texts: readonly string[]): string {
  const shortest = texts.reduce((a, b) => (b.length < a.length ? b : a));
  for (let length = shortest.length; length >= MIN_COMMON; length--) {
    for (let start = 0; start + length <= shortest.length; start++) {
      const part = shortest.slice(start, start + length);
      if (texts.every((text) => text.includes(part))) return part;
    }
  }
  return '';
}

const UNSEARCHABLE = /\uFFFD|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function searchablePiece(text: string): string {
  if (!UNSEARCHABLE.test(text)) return text;
  return text.split(new RegExp(UNSEARCHABLE.source, 'g')).reduce((best, piece) => (piece.length > best.length ? piece : best), '');
}
