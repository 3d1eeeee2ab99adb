/**
 * A query's whole ranked answer before paging: every stage (./../modes) builds one, the engine pages it. Kept
 * whole (and cached while the workspace is unchanged) so every page of a query sees the same order and the same
 * `total`, `files` and `partial`.
 *
 * The engine reads a set's groups only through `RankedGroups` (a length and slices), so a mode whose sets are
 * huge — `files`: a 2-character query matches most of a tree — can hand out a ranking that builds the groups of
 * the ranks a page reads only. Stages that combine sets (q-mode) take whole arrays: `ResultSet` with no argument.
 */
import type { Group, SearchMode } from '../answer.ts';

/** Ranked groups as paging reads them; an array is one. `slice` gives the same groups for the same ranks. */
export interface RankedGroups {
  readonly length: number;
  slice(start: number, end: number): Group[];
}

export interface ResultSet<Groups extends RankedGroups = Group[]> {
  /** The mode asked for (`q` when none), even if the engine fell back to prose inside it. */
  mode: SearchMode;
  /** Best first; `score` never rises. */
  groups: Groups;
  /** Hits in the whole set (in `files` mode: files); a floor when `partial`. */
  total: number;
  partial: boolean;
  note?: string;
  hint?: string;
  related?: string[];
  candidates?: string[];
  features?: string[];
}

/** `set` with its groups as one array (for a stage that combines sets). */
export function wholeSet(set: ResultSet<RankedGroups>): ResultSet {
  return { ...set, groups: set.groups.slice(0, set.groups.length) };
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
