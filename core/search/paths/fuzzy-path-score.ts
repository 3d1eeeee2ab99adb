/**
 * The `files` mode scorer, exactly as docs/intentic-search.md says (`files`), case-insensitive:
 * - the query is a substring of the path: 0.75, + 0.2 if it starts in the base name, + 5 / len(path);
 * - else each query character is found left to right (greedily, the first occurrence after the previous match;
 *   all must be found), worth 1, + 0.8 right after the previous one, + 0.6 at index 0, after `/` `.` `_` `-`
 *   or on a capital; the sum × 0.7 / (2.4 n) × min(1, 20 / max(20, len(path) − n)).
 * Lengths are UTF-16 code units. Scores can exceed 1 (a short substring path); tags show min(1, score).
 *
 * "Starts in the base name" when any occurrence does (the last one is checked): `src/src.ts` against `src`
 * gets the bonus. Case folding is per code unit, so offsets into the folded path are offsets into the path.
 *
 * The work is done on code units (`scoreCodes`), the form the ranker (./rank-fuzzy-paths.ts) keeps every path
 * in; the ranker calls the same two rules (`substringScore`, `orderedScore`) separately, so their answers cannot
 * drift apart.
 */

export function fuzzyPathScore(query: string, path: string): number | undefined {
  const folded = foldedCodes(path);
  return scoreCodes(foldedCodes(query), path, folded, 0, folded.length);
}

/** `fuzzyPathScore` with both already case-folded by `foldCase` (for callers that fold each name once). */
export function scoreFolded(foldedQuery: string, path: string, foldedPath: string): number | undefined {
  return scoreCodes(codesOf(foldedQuery), path, codesOf(foldedPath), 0, foldedPath.length);
}

/**
 * The score of `path` whose folded code units are `codes[start, end)`, against the folded query `query`.
 * `path` (unfolded) is read only to tell capitals.
 */
export function scoreCodes(
  query: ArrayLike<number>,
  path: string,
  codes: ArrayLike<number>,
  start: number,
  end: number,
): number | undefined {
  const last = lastIndexOfCodes(query, codes, start, end);
  if (last >= 0) return substringScore(last, path.lastIndexOf('/') + 1, end - start);
  return orderedScore(query, path, codes, start, end);
}

/**
 * The substring rule's score (at least 0.75) of a path of `length` code units whose base name starts at
 * `baseStart` and holds the query's last occurrence at `last`. The ordered rule gives at most 0.7 (see
 * `orderedScore`), so every substring match outranks every other match: the ranker relies on it.
 */
export function substringScore(last: number, baseStart: number, length: number): number {
  return 0.75 + (last >= baseStart ? 0.2 : 0) + 5 / length;
}

/**
 * The ordered-characters rule's score, or undefined when the characters are not all found in order. At most
 * 0.7: each character earns at most 1 + 0.8 + 0.6 = 2.4, so the sum is at most 2.4 n, and the length factor is
 * at most 1.
 */
export function orderedScore(
  query: ArrayLike<number>,
  path: string,
  codes: ArrayLike<number>,
  start: number,
  end: number,
): number | undefined {
  const n = query.length;
  const length = end - start;
  let sum = 0;
  let previous = -2;
  let at = 0;
  for (let i = 0; i < n; i++) {
    const c = query[i]!;
    while (at < length && codes[start + at] !== c) at++;
    if (at >= length) return undefined;
    sum += 1;
    if (at === previous + 1) sum += 0.8;
    if (at === 0 || isBoundary(codes[start + at - 1]!) || isCapital(path, at)) sum += 0.6;
    previous = at;
    at++;
  }
  return ((sum * 0.7) / (2.4 * n)) * Math.min(1, 20 / Math.max(20, length - n));
}

/** Whether the folded query's characters all occur in `codes[start, end)` in order (the scorer's precondition). */
export function holdsInOrder(query: ArrayLike<number>, codes: ArrayLike<number>, start: number, end: number): boolean {
  let at = start;
  for (let i = 0; i < query.length; i++) {
    const c = query[i]!;
    while (at < end && codes[at] !== c) at++;
    if (at >= end) return false;
    at++;
  }
  return true;
}

/** Lower-cases code unit by code unit, so the result has the same length and offsets as `text`. */
export function foldCase(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  // A character whose lower case is longer ("İ" → "i̇") keeps its own code unit.
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const l = c.toLowerCase();
    out += l.length === 1 ? l : c;
  }
  return out;
}

/** `foldCase(text)` as code units. */
export function foldedCodes(text: string): Uint16Array {
  return codesOf(foldCase(text));
}

function codesOf(text: string): Uint16Array {
  const codes = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) codes[i] = text.charCodeAt(i);
  return codes;
}

/** Offset (from `start`) of the last occurrence of `query` in `codes[start, end)`, or -1. */
export function lastIndexOfCodes(query: ArrayLike<number>, codes: ArrayLike<number>, start: number, end: number): number {
  const n = query.length;
  if (n === 0) return end - start;
  const first = query[0]!;
  for (let at = end - n; at >= start; at--) {
    if (codes[at] !== first) continue;
    let k = 1;
    while (k < n && codes[at + k] === query[k]) k++;
    if (k === n) return at - start;
  }
  return -1;
}

const SLASH = 0x2f;
const DOT = 0x2e;
const UNDERSCORE = 0x5f;
const DASH = 0x2d;

function isBoundary(code: number): boolean {
  return code === SLASH || code === DOT || code === UNDERSCORE || code === DASH;
}

function isCapital(path: string, at: number): boolean {
  const code = path.charCodeAt(at);
  if (code < 0x80) return code >= 0x41 && code <= 0x5a;
  const c = path[at]!;
  return c !== c.toLowerCase();
}
