/**
 * Ranks paths by `fuzzyPathScore` for the `files` mode and the `@` search: best score first, ties by path in
 * code-unit order; the group score is 1/(rank+1) and the tag shows min(1, score) to two places (tagScore).
 *
 * Every keystroke of an `@` search ranks the whole list (78 579 paths for the kernel tree), so paths that
 * cannot match are skipped cheaply, by necessary conditions of both the substring and the ordered-characters
 * rule: the path holds every character of the query (a 64-bit set of folded characters kept per path), then
 * holds them in order (a loop over the folded code units, kept in one block). Only what passes is scored. The
 * tables are built once per list array — FileList.files() returns the same array until the list changes —
 * and the result is exactly what scoring every path with fuzzyPathScore gives (the tests compare the two).
 */
import { tagScore, type Group } from '../answer.ts';
import { foldedCodes, foldCase, holdsInOrder, scoreCodes } from './fuzzy-path-score.ts';

export interface RankedPath {
  path: string;
  score: number;
}

/** Every path of one list, folded, in one block of code units (a string per path would cost a call per test). */
interface PathTable {
  codes: Uint16Array;
  /** Path i is `codes[starts[i], starts[i + 1])`. */
  starts: Uint32Array;
  /** Character sets, two 32-bit words per path. */
  sets: Int32Array;
  /** The items are in code-unit order of path already (FileList.files() is): ties are broken by index. */
  sortedByPath: boolean;
}

const tables = new WeakMap<readonly { readonly path: string }[], PathTable>();

/**
 * The paths of `items` that match `query`, best first (ties by path). Pass the same array again for the
 * prefilter tables to be reused: they are kept per array (weakly).
 */
export function rankFuzzyPaths(query: string, items: readonly { readonly path: string }[]): RankedPath[] {
  const { codes, starts, sets, sortedByPath } = tableFor(items);
  const folded = foldedCodes(query);
  const [low, high] = characterSet(foldCase(query));
  // Scores take few distinct values (they depend on the path's length and a sum of fixed bonuses), so ties are
  // many: paths are gathered per score, in item order, and the scores sorted — no comparison of paths at all
  // when the items are in path order already.
  const byScore = new Map<number, string[]>();
  for (let i = 0; i < items.length; i++) {
    if ((sets[2 * i]! & low) !== low || (sets[2 * i + 1]! & high) !== high) continue;
    const start = starts[i]!;
    const end = starts[i + 1]!;
    if (!holdsInOrder(folded, codes, start, end)) continue;
    const path = items[i]!.path;
    const score = scoreCodes(folded, path, codes, start, end);
    if (score === undefined) continue;
    const tied = byScore.get(score);
    if (tied) tied.push(path);
    else byScore.set(score, [path]);
  }
  const ranked: RankedPath[] = [];
  for (const score of [...byScore.keys()].sort((a, b) => b - a)) {
    const tied = byScore.get(score)!;
    if (!sortedByPath) tied.sort(comparePaths);
    for (const path of tied) ranked.push({ path, score });
  }
  return ranked;
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

function tableFor(items: readonly { readonly path: string }[]): PathTable {
  let table = tables.get(items);
  if (table) return table;
  let total = 0;
  for (const item of items) total += item.path.length;
  const codes = new Uint16Array(total);
  const starts = new Uint32Array(items.length + 1);
  const sets = new Int32Array(items.length * 2);
  let sortedByPath = true;
  let at = 0;
  for (let i = 0; i < items.length; i++) {
    const path = items[i]!.path;
    if (i > 0 && !(items[i - 1]!.path < path)) sortedByPath = false;
    const folded = foldCase(path);
    starts[i] = at;
    for (let k = 0; k < folded.length; k++) codes[at++] = folded.charCodeAt(k);
    const [low, high] = characterSet(folded);
    sets[2 * i] = low;
    sets[2 * i + 1] = high;
  }
  starts[items.length] = at;
  table = { codes, starts, sets, sortedByPath };
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
