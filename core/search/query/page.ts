/**
 * Paging (docs/intentic-search.md "Paging"): a page takes whole groups in rank order until it holds `limit` of them or the
 * next would push it past MAX_HITS_PER_PAGE hits; the first group is always taken, so every page makes progress.
 */
import { MAX_HITS_PER_PAGE, type Group } from '../answer.ts';
import type { RankedGroups } from './result-set.ts';

export interface Page {
  groups: Group[];
  /** Hits on this page. */
  shown: number;
  /** Index of the first group not on this page; `groups.length` of the whole set when none remain. */
  next: number;
}

export function takePage(ranked: RankedGroups, start: number, limit: number): Page {
  const groups: Group[] = [];
  // A page holds at most `limit` groups: only those are read (a lazy ranking builds only those).
  const candidates = ranked.slice(start, start + limit);
  let shown = 0;
  let at = start;
  while (at < ranked.length && groups.length < limit) {
    const group = candidates[at - start]!;
    if (groups.length > 0 && shown + group.hits.length > MAX_HITS_PER_PAGE) break;
    groups.push(group);
    shown += group.hits.length;
    at++;
  }
  return { groups, shown, next: at };
}
