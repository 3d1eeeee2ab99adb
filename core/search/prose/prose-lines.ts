/**
 * Which lines of a prose result to show (the hits of its group): the lines holding the most distinct query terms
 * (ties: the earlier line), at most MAX_HITS_PER_FILE, then in line order. Lines split at `\n`, a trailing `\r`
 * dropped (as every text stage splits them), numbered from 1; `text` is the line as in the file, cut at its end
 * to MAX_PROSE_LINE_TEXT code units (never inside a surrogate pair). A line's `score` is the share of the
 * query's IDF weight its terms carry (0..1).
 */
import { MAX_HITS_PER_FILE } from '../answer.ts';
import { forEachTerm } from './tokens.ts';

export const MAX_PROSE_LINE_TEXT = 200;

export interface ProseHitLine {
  line: number;
  text: string;
  score: number;
}

export interface ProseLines {
  lines: ProseHitLine[];
  /** More than MAX_HITS_PER_FILE lines held a query term (the group's `capped`). */
  capped: boolean;
}

/** `weights`: each distinct query term and its IDF (a term the index never saw weighs 0 and is never shown). */
export function proseLines(text: string, weights: ReadonlyMap<string, number>): ProseLines {
  let total = 0;
  for (const weight of weights.values()) total += weight;
  const candidates = candidateLineStarts(text, weights);
  const found: { line: number; start: number; end: number; count: number; score: number }[] = [];
  for (const [line, start] of candidates) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    const seen = new Set<string>();
    forEachTerm(text.slice(start, end), (term) => {
      if ((weights.get(term) ?? 0) > 0) seen.add(term);
    });
    if (seen.size === 0) continue;
    let weight = 0;
    for (const term of seen) weight += weights.get(term)!;
    found.push({ line, start, end, count: seen.size, score: total > 0 ? weight / total : 0 });
  }
  const kept = found
    .sort((a, b) => b.count - a.count || a.line - b.line)
    .slice(0, MAX_HITS_PER_FILE)
    .sort((a, b) => a.line - b.line);
  return {
    lines: kept.map(({ line, start, end, score }) => ({ line, text: lineText(text, start, end), score })),
    capped: found.length > MAX_HITS_PER_FILE,
  };
}

/**
 * Line number → start offset of every line whose lower-cased text contains a query term as a substring: a
 * superset of the lines holding the term as a token (terms are lower-cased parts of words), found with
 * `indexOf` over the whole text so only those lines are tokenized. Lower-casing can change a string's length
 * (`İ` becomes two code units), and then offsets no longer line up: such a text is searched line by line.
 */
function candidateLineStarts(text: string, weights: ReadonlyMap<string, number>): Map<number, number> {
  const terms = [...weights].filter(([, weight]) => weight > 0).map(([term]) => term);
  const found = new Map<number, number>();
  if (terms.length === 0) return found;
  const starts = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  const lower = text.toLowerCase();
  if (lower.length !== text.length) {
    starts.forEach((start, index) => {
      const end = starts[index + 1] ?? text.length + 1;
      const line = text.slice(start, end - 1).toLowerCase();
      if (terms.some((term) => line.includes(term))) found.set(index + 1, start);
    });
    return found;
  }
  for (const term of terms) {
    for (let at = lower.indexOf(term); at !== -1; ) {
      const index = lineIndexOf(starts, at);
      found.set(index + 1, starts[index]!);
      // The rest of this line is already a candidate: go on from the next line.
      const next = starts[index + 1];
      at = next === undefined ? -1 : lower.indexOf(term, next);
    }
  }
  return found;
}

/** The index of the last line start ≤ `at` (binary search). */
function lineIndexOf(starts: readonly number[], at: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= at) low = mid;
    else high = mid - 1;
  }
  return low;
}

function lineText(text: string, start: number, end: number): string {
  if (end > start && text.charCodeAt(end - 1) === 0x0d) end--;
  if (end - start > MAX_PROSE_LINE_TEXT) {
    end = start + MAX_PROSE_LINE_TEXT;
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end--;
  }
  return text.slice(start, end);
}
