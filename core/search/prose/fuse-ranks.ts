/**
 * `q`'s blend of its stages (docs/intentic-search.md `q`): reciprocal-rank fusion, k = 60. A file's score is the sum over
 * the lists that hold it of 1 / (k + rank), rank from 1 (the best of a list adds 1/61); then ×1.5 if it holds a
 * definition of the query and ×1.25 if one of its path words starts with a query word. Ties by path in
 * code-unit order, so a re-run keeps its order.
 *
 * Query words are the query's prose terms (./tokens.ts `queryTerms`: identifier-split, lower-cased, stop words
 * dropped, so "the" never boosts `theme.ts`); path words are the path split on `/ . _ -` and at case changes
 * (./tokens.ts `pathWords`: `src/UserService.ts` → src, user, service, ts; digits apart from letters as
 * everywhere in the tokenizer). Both lower-case: `Widget` starts `widgets/`.
 */
import { pathWords, queryTerms } from './tokens.ts';

export type FusionStage = 'def' | 'text' | 'files' | 'bm25' | 'sem';

export interface RankedList {
  stage: FusionStage;
  /** Best first; a path listed twice counts at its first rank. */
  paths: readonly string[];
}

export interface FuseOptions {
  query: string;
  /** Files holding a definition of the query (the `def` stage's files). */
  definitions?: ReadonlySet<string>;
  k?: number;
}

export interface FusedFile {
  path: string;
  score: number;
  /** The file's rank (from 1) in each list that holds it. */
  ranks: Partial<Record<FusionStage, number>>;
}

export const RRF_K = 60;
export const DEFINITION_BOOST = 1.5;
export const PATH_WORD_BOOST = 1.25;

export function fuseRanks(lists: readonly RankedList[], options: FuseOptions): FusedFile[] {
  const k = options.k ?? RRF_K;
  const fused = new Map<string, FusedFile>();
  for (const { stage, paths } of lists) {
    paths.forEach((path, index) => {
      let file = fused.get(path);
      if (file === undefined) fused.set(path, (file = { path, score: 0, ranks: {} }));
      if (file.ranks[stage] !== undefined) return;
      file.ranks[stage] = index + 1;
      file.score += 1 / (k + index + 1);
    });
  }
  const words = queryTerms(options.query);
  for (const file of fused.values()) {
    if (options.definitions?.has(file.path)) file.score *= DEFINITION_BOOST;
    if (words.length > 0 && pathWords(file.path).some((part) => words.some((word) => part.startsWith(word)))) {
      file.score *= PATH_WORD_BOOST;
    }
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
