/**
 * A query's whole ranked answer before paging: every stage (./../modes) builds one, the engine pages it. Kept
 * whole (and cached while the workspace is unchanged) so every page of a query sees the same order and the same
 * `total`, `files` and `partial`.
 */
import type { Group, SearchMode } from '../answer.ts';

export interface ResultSet {
  /** The mode asked for (`q` when none), even if the engine fell back to prose inside it. */
  mode: SearchMode;
  /** Best first; `score` never rises. */
  groups: Group[];
  /** Hits in the whole set (in `files` mode: files); a floor when `partial`. */
  total: number;
  partial: boolean;
  note?: string;
  hint?: string;
  related?: string[];
  candidates?: string[];
  features?: string[];
}

/** Sum of the hits of every group, and whether any group is capped: the set's `total` and `partial`. */
export function countHits(groups: readonly Group[]): { total: number; partial: boolean } {
  let total = 0;
  let partial = false;
  for (const group of groups) {
    total += group.hits.length;
    if (group.capped) partial = true;
  }
  return { total, partial };
}

/** Sorts groups best first, ties by path in code-unit order, so a re-run keeps its order. */
export function rankGroups(groups: Group[]): Group[] {
  return groups.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
