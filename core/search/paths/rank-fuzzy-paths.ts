/**
 * Ranks paths by `fuzzyPathScore` for the `files` mode and the `@` search: best score first, ties by path in
 * code-unit order; the group score is 1/(rank+1) and the tag shows min(1, score) to two places (tagScore).
 *
 * Every keystroke of an `@` search ranks the whole list (78 579 paths for the kernel tree), and a 2-character
 * query matches most of it while a page shows 50. So:
 * - paths that cannot match are skipped cheaply: the path must hold every character of the query (a 64-bit set
 *   of folded characters kept per path), then hold them in order (a loop over its folded code units, kept in
 *   one block); then where the query last occurs in it, if at all, tells the rule; and while a query is typed
 *   out, only the matches of the longest recent query it extends are looked at (`recent`);
 * - a ranking is lazy (`PathRanking`): that pass counts the matches and scores the substring ones (cheap: a
 *   formula of the path's length); ranks are ordered only as far as a slice reads, by a bounded selection
 *   (`topRanks`), and the ordered-characters matches — which all rank below every substring match (≤ 0.7
 *   against ≥ 0.75, see ./fuzzy-path-score.ts) — are scored only when a slice reaches past the substring ones,
 *   and then only those whose length still lets them reach the page.
 * The order is total (score, then path), so every slice of a ranking is a slice of the one order, and it is
 * exactly what scoring every path with fuzzyPathScore gives (the tests compare the two). The tables are built
 * once per list array — FileList.files() returns the same array until the list changes.
 */
import { tagScore, type Group } from '../answer.ts';
import { foldedCodes, foldCase, holdsInOrder, lastIndexOfCodes, orderedScore, substringScore } from './fuzzy-path-score.ts';

export interface RankedPath {
  path: string;
  score: number;
}

/** The matches of one query, best first; ranks are ordered when first read. */
export interface PathRanking {
  /** How many paths match. */
  readonly length: number;
  /** The matches at ranks [start, end) (clamped to the ranking), best first. */
  slice(start: number, end: number): RankedPath[];
}

type Items = readonly { readonly path: string }[];

/** Every path of one list, folded, in one block of code units (a string per path would cost a call per test). */
interface PathTable {
  codes: Uint16Array;
  /** Path i is `codes[starts[i], starts[i + 1])`. */
  starts: Uint32Array;
  /** Where path i's base name starts, from its start. */
  bases: Uint32Array;
  /** Character sets, two 32-bit words per path. */
  sets: Int32Array;
  /** The items are in code-unit order of path already (FileList.files() is): ties are broken by index. */
  sortedByPath: boolean;
  /** Item indices, shortest path first (made when first needed). */
  byLength?: Uint32Array;
  /** The last few queries (folded) and the items that hold them in order, in item order, most recent first. */
  recent: { query: string; matches: Int32Array }[];
}

/**
 * Queries whose matches a table keeps. Typing extends the query a character at a time, and a path holding the
 * longer query's characters in order holds the shorter one's: so a query is matched against the matches of the
 * longest kept query it extends, not the whole list (a few keystrokes in, a few thousand paths of 78 579). The
 * answer is still computed whole each time (no answer is kept); only the paths that cannot match are skipped.
 */
const RECENT_QUERIES = 4;

/**
 * The best ranks of one part of a ranking (its members are item indices in item order) as far as they have
 * been ordered: `indices[r]`, `scores[r]` for r < indices.length.
 */
interface RankedPrefix {
  indices: Int32Array;
  scores: Float64Array;
}

/** How one part's members (by position in the part) are scored. */
interface PartScorer {
  /** Member positions in the order to score them, `bound` never rising along it; undefined: in member order. */
  order(): ArrayLike<number> | undefined;
  /** A score that member `k` cannot beat, and no member after it in `order` either. */
  bound(k: number): number;
  score(k: number): number;
}

const tables = new WeakMap<Items, PathTable>();

/**
 * The paths of `items` that match `query`, best first (ties by path). Pass the same array again for the
 * prefilter tables to be reused: they are kept per array (weakly).
 */
export function rankFuzzyPaths(query: string, items: Items): RankedPath[] {
  const ranking = rankFuzzyPathsLazily(query, items);
  return ranking.slice(0, ranking.length);
}

/**
 * `rankFuzzyPaths` as a lazy ranking: the pass over `items` happens now, the ordering (and the scoring of the
 * ordered-characters matches) when a slice first needs it. `items` must not change while the ranking is read
 * (the file list hands out a new array instead of changing one).
 */
export function rankFuzzyPathsLazily(query: string, items: Items): PathRanking {
  const table = tableFor(items);
  const { codes, starts, bases, sets } = table;
  const foldedQuery = foldCase(query);
  const folded = foldedCodes(query);
  const [low, high] = characterSet(foldedQuery);
  const substrings: number[] = [];
  const substringScores: number[] = [];
  const ordered: number[] = [];
  const matches: number[] = [];
  const narrowed = narrowest(table, foldedQuery);
  const candidates = narrowed?.length ?? items.length;
  for (let c = 0; c < candidates; c++) {
    const i = narrowed === undefined ? c : narrowed[c]!;
    if ((sets[2 * i]! & low) !== low || (sets[2 * i + 1]! & high) !== high) continue;
    const start = starts[i]!;
    const end = starts[i + 1]!;
    if (!holdsInOrder(folded, codes, start, end)) continue;
    matches.push(i);
    const last = lastIndexOfCodes(folded, codes, start, end);
    if (last === -1) ordered.push(i);
    else {
      substrings.push(i);
      substringScores.push(substringScore(last, bases[i]!, end - start));
    }
  }
  table.recent = [{ query: foldedQuery, matches: Int32Array.from(matches) }, ...table.recent.filter((kept) => kept.query !== foldedQuery)].slice(0, RECENT_QUERIES);
  const n = folded.length;
  const substringPart = rankedPart(items, table, substrings, {
    order: () => undefined,
    bound: () => Number.POSITIVE_INFINITY,
    score: (k) => substringScores[k]!,
  });
  let orderedByLength: Int32Array | undefined;
  const orderedPart = rankedPart(items, table, ordered, {
    // Shortest first: the ordered rule's bound falls with the length, so the best come first and, once the page
    // is filled, the rest is skipped unscored.
    order: () => (orderedByLength ??= byLength(table, ordered)),
    // The bonus sum stays below 2.4 n, so the score below 0.7 × the length factor; float products are monotonic,
    // so the bound holds for the computed score too.
    bound: (k) => 0.7 * Math.min(1, 20 / Math.max(20, starts[ordered[k]! + 1]! - starts[ordered[k]!]! - n)),
    score: (k) => {
      const i = ordered[k]!;
      // Holding the characters in order is the ordered rule's condition: it always scores here.
      return orderedScore(folded, items[i]!.path, codes, starts[i]!, starts[i + 1]!)!;
    },
  });
  const length = substrings.length + ordered.length;
  return {
    length,
    slice(from, to) {
      const start = Math.max(0, Math.min(from, length));
      const end = Math.max(start, Math.min(to, length));
      const out: RankedPath[] = [];
      const split = substrings.length;
      if (start < split) substringPart(start, Math.min(end, split), out);
      if (end > split) orderedPart(Math.max(start, split) - split, end - split, out);
      return out;
    },
  };
}

/**
 * Reads ranks [start, end) of one part into `out`, ordering the part's best ranks first as far as needed (at
 * least twice as far as before, so reading page after page orders each member a few times at most).
 */
function rankedPart(
  items: Items,
  table: PathTable,
  members: readonly number[],
  scorer: PartScorer,
): (start: number, end: number, out: RankedPath[]) => void {
  let prefix: RankedPrefix = { indices: new Int32Array(0), scores: new Float64Array(0) };
  return (start, end, out) => {
    if (end > prefix.indices.length) {
      prefix = topRanks(items, table, members, scorer, Math.max(end, 2 * prefix.indices.length));
    }
    for (let r = start; r < end; r++) out.push({ path: items[prefix.indices[r]!]!.path, score: prefix.scores[r]! });
  };
}

/**
 * The best `count` members (item indices, in item order), best first, ties by path. A bounded min-heap of
 * scores finds the score of rank `count` (the floor) in one pass in the scorer's order, which stops where the
 * bound falls below the floor; the members at or above the floor are then gathered per score, in item order,
 * and the scores sorted — scores take few distinct values (a path's length and a sum of fixed bonuses), so ties
 * are many, and when the items are in path order no paths are compared at all.
 */
function topRanks(items: Items, table: PathTable, members: readonly number[], scorer: PartScorer, count: number): RankedPrefix {
  const size = Math.min(count, members.length);
  if (size === 0) return { indices: new Int32Array(0), scores: new Float64Array(0) };
  const scores = new Float64Array(members.length).fill(Number.NEGATIVE_INFINITY);
  const heap = new Float64Array(size);
  let filled = 0;
  const order = scorer.order();
  for (let v = 0; v < members.length; v++) {
    const k = order === undefined ? v : order[v]!;
    const floor = filled === size ? heap[0]! : Number.NEGATIVE_INFINITY;
    // Ties at the floor may still rank by path: only a bound below it ends the pass.
    if (scorer.bound(k) < floor) break;
    const score = scorer.score(k);
    if (score < floor) continue;
    scores[k] = score;
    if (filled < size) siftUp(heap, filled++, score);
    else if (score > floor) siftDown(heap, size, score);
  }
  const floor = filled === size ? heap[0]! : Number.NEGATIVE_INFINITY;
  const byScore = new Map<number, number[]>();
  for (let k = 0; k < members.length; k++) {
    const score = scores[k]!;
    if (score === Number.NEGATIVE_INFINITY || score < floor) continue;
    const tied = byScore.get(score);
    if (tied) tied.push(members[k]!);
    else byScore.set(score, [members[k]!]);
  }
  const prefix: RankedPrefix = { indices: new Int32Array(size), scores: new Float64Array(size) };
  let at = 0;
  for (const score of [...byScore.keys()].sort((a, b) => b - a)) {
    const tied = byScore.get(score)!;
    if (!table.sortedByPath) tied.sort((a, b) => comparePaths(items[a]!.path, items[b]!.path));
    for (let t = 0; t < tied.length && at < size; t++) {
      prefix.indices[at] = tied[t]!;
      prefix.scores[at++] = score;
    }
  }
  return prefix;
}

/** The matches of the longest kept query that `foldedQuery` extends (all of its matches are among them). */
function narrowest(table: PathTable, foldedQuery: string): Int32Array | undefined {
  let best: { query: string; matches: Int32Array } | undefined;
  for (const kept of table.recent) {
    if (foldedQuery.startsWith(kept.query) && (best === undefined || kept.query.length > best.query.length)) best = kept;
  }
  return best?.matches;
}

/** The positions of `members` (item indices) ordered by their path's length, shortest first. */
function byLength(table: PathTable, members: readonly number[]): Int32Array {
  const { starts } = table;
  const items = starts.length - 1;
  if (table.byLength === undefined) {
    // A counting sort by length, stable: once per list array.
    let longest = 0;
    for (let i = 0; i < items; i++) longest = Math.max(longest, starts[i + 1]! - starts[i]!);
    const first = new Uint32Array(longest + 2);
    for (let i = 0; i < items; i++) first[starts[i + 1]! - starts[i]! + 1]!++;
    for (let length = 1; length <= longest + 1; length++) first[length]! += first[length - 1]!;
    const sorted = new Uint32Array(items);
    for (let i = 0; i < items; i++) sorted[first[starts[i + 1]! - starts[i]!]!++] = i;
    table.byLength = sorted;
  }
  const position = new Int32Array(items);
  for (let k = 0; k < members.length; k++) position[members[k]!] = k + 1;
  const order = new Int32Array(members.length);
  let at = 0;
  for (const i of table.byLength) if (position[i] !== 0) order[at++] = position[i]! - 1;
  return order;
}

/** Adds `value` to the min-heap `heap[0, filled)` (filled is its size before). */
function siftUp(heap: Float64Array, filled: number, value: number): void {
  let at = filled;
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if (heap[parent]! <= value) break;
    heap[at] = heap[parent]!;
    at = parent;
  }
  heap[at] = value;
}

/** Replaces the least value of the full min-heap `heap[0, size)` with `value`. */
function siftDown(heap: Float64Array, size: number, value: number): void {
  let at = 0;
  for (;;) {
    let child = 2 * at + 1;
    if (child >= size) break;
    if (child + 1 < size && heap[child + 1]! < heap[child]!) child++;
    if (heap[child]! >= value) break;
    heap[at] = heap[child]!;
    at = child;
  }
  heap[at] = value;
}

function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Best score first, then path in code-unit order. */
export function compareRanked(a: RankedPath, b: RankedPath): number {
  return b.score - a.score || comparePaths(a.path, b.path);
}

/** The `files` mode group of the path at `rank` (0 for the best): one hit `{line: 1, text: path, tags: [fuzzy]}`. */
export function fuzzyPathGroup(ranked: RankedPath, rank: number): Group {
  return {
    path: ranked.path,
    score: 1 / (rank + 1),
    hits: [{ line: 1, text: ranked.path, spans: [], tags: [{ kind: 'fuzzy', score: tagScore(ranked.score) }] }],
  };
}

function tableFor(items: Items): PathTable {
  let table = tables.get(items);
  if (table) return table;
  let total = 0;
  for (const item of items) total += item.path.length;
  const codes = new Uint16Array(total);
  const starts = new Uint32Array(items.length + 1);
  const sets = new Int32Array(items.length * 2);
  const bases = new Uint32Array(items.length);
  let sortedByPath = true;
  let at = 0;
  for (let i = 0; i < items.length; i++) {
    const path = items[i]!.path;
    if (i > 0 && !(items[i - 1]!.path < path)) sortedByPath = false;
    const folded = foldCase(path);
    starts[i] = at;
    for (let k = 0; k < folded.length; k++) {
      codes[at++] = folded.charCodeAt(k);
      if (path.charCodeAt(k) === SLASH) bases[i] = k + 1;
    }
    const [low, high] = characterSet(folded);
    sets[2 * i] = low;
    sets[2 * i + 1] = high;
  }
  starts[items.length] = at;
  table = { codes, starts, bases, sets, sortedByPath, recent: [] };
  tables.set(items, table);
  return table;
}

/**
 * The set of characters of a folded string as 64 bits: `a`-`z` and `0`-`9` each have their own bit, the other
 * ASCII characters share the remaining ones by code, and every non-ASCII code unit maps to the last bit.
 * Sharing only makes the filter let more through, never less.
 */
function characterSet(folded: string): [number, number] {
  let low = 0;
  let high = 0;
  for (let i = 0; i < folded.length; i++) {
    const bit = BIT_OF[folded.charCodeAt(i)] ?? 63;
    if (bit < 32) low |= 1 << bit;
    else high |= 1 << (bit - 32);
  }
  return [low, high];
}

const SLASH = 0x2f;

const BIT_OF: Uint8Array = (() => {
  const bits = new Uint8Array(128);
  let next = 36;
  for (let code = 0; code < 128; code++) {
    if (code >= 0x61 && code <= 0x7a) bits[code] = code - 0x61;
    else if (code >= 0x30 && code <= 0x39) bits[code] = 26 + code - 0x30;
    else {
      bits[code] = next;
      next = next === 62 ? 36 : next + 1;
    }
  }
  return bits;
})();
