/**
 * The raw-bytes test a file passes before any of it is decoded (./find-query.ts): every clause of `required`
 * has an alternative somewhere in the bytes, and the lines that can match are the ones holding an alternative of
 * the first (most selective) clause. Nearly every file of a tree fails it, and failing costs one byte search.
 *
 * Case-insensitive needles are searched with ASCII letters folded, which is exact only for characters whose
 * every case variant is their ASCII other case. Unicode simple folding also pairs `k` with U+212A KELVIN SIGN,
 * `s` with U+017F LONG S, `é` with `É` (different bytes), …: such characters cut a needle, and the longest
 * remaining piece is searched (a piece of a required string is required too).
 */
import { byteSearch, type ByteSearch } from './byte-search.ts';

export interface BytePrefilter {
  /** Whether the bytes can hold a matching line: false rules the file out. */
  fileMayMatch(bytes: Uint8Array, end: number): boolean;
  /** Lines holding a candidate, in order: the offset of the next candidate at or after `from`, or -1. */
  candidates(bytes: Uint8Array, end: number): CandidateCursor;
  /**
   * Whether the line `bytes[start, end)` (holding a candidate) also holds an alternative of every other clause:
   * a match lies within one line, so false rules the line out before it is decoded.
   */
  lineMayMatch(bytes: Uint8Array, start: number, end: number): boolean;
}

export interface CandidateCursor {
  next(from: number): number;
}

const encoder = new TextEncoder();

/** The prefilter of `required`, or undefined when it restricts nothing (every line must be tried). */
export function bytePrefilter(required: readonly (readonly string[])[], caseSensitive: boolean): BytePrefilter | undefined {
  const clauses: ByteSearch[][] = [];
  for (const clause of required) {
    const needles = clause.map((text) => (caseSensitive ? text : foldSafePiece(text)));
    if (needles.length === 0 || needles.some((needle) => needle === '')) continue; // an alternative needs nothing
    clauses.push([...new Set(needles)].map((needle) => byteSearch(encoder.encode(needle), !caseSensitive)));
  }
  if (clauses.length === 0) return undefined;
  // Single needles first: one pass each, and the first clause's needles are what candidate lines are found by.
  clauses.sort((a, b) => a.length - b.length || b[0]!.length - a[0]!.length);
  const [first, ...rest] = clauses as [ByteSearch[], ...ByteSearch[][]];
  const holds = (clause: readonly ByteSearch[], bytes: Uint8Array, start: number, end: number) =>
    clause.some((search) => search.indexIn(bytes, start, end) >= 0);
  return {
    // The first clause is found by `candidates` anyway: only the others are checked here.
    fileMayMatch: (bytes, end) => rest.every((clause) => holds(clause, bytes, 0, end)),
    candidates: (bytes, end) => new Candidates(first, bytes, end),
    lineMayMatch: (bytes, start, end) => rest.every((clause) => holds(clause, bytes, start, end)),
  };
}

/** The next occurrence of any alternative, each alternative's own next occurrence remembered. */
class Candidates implements CandidateCursor {
  private readonly found: number[];

  constructor(
    private readonly searches: readonly ByteSearch[],
    private readonly bytes: Uint8Array,
    private readonly end: number,
  ) {
    this.found = searches.map(() => -2); // -2: not searched yet
  }

  next(from: number): number {
    let best = -1;
    for (let i = 0; i < this.searches.length; i++) {
      let at = this.found[i]!;
      if (at === -1) continue;
      if (at < from) this.found[i] = at = this.searches[i]!.indexIn(this.bytes, from, this.end);
      if (at >= 0 && (best < 0 || at < best)) best = at;
    }
    return best;
  }
}

/**
 * The longest piece of `text` whose characters all fold by ASCII rules alone: ASCII other than k/K/s/S, and
 * characters without any case mapping (`\p{Changes_When_Casemapped}` covers every one that folds or is folded to).
 */
function foldSafePiece(text: string): string {
  let best = '';
  let run = '';
  for (const char of text) {
    if (isFoldSafe(char)) run += char;
    else run = '';
    if (run.length > best.length) best = run;
  }
  return best;
}

function isFoldSafe(char: string): boolean {
  if (char.length === 1 && char.charCodeAt(0) < 0x80) return !/[ksKS]/.test(char);
  return !/\p{CWCM}/u.test(char);
}
