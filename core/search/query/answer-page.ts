/**
 * One page of a query's whole ResultSet as the wire answer (docs/intentic-search.md "Answer", "Paging"): `files` and
 * `total` of the whole set, `shown` of the page, `truncated` and then (only then) `cursor`; optional keys are
 * omitted, never null; every zero-hit answer has a hint.
 */
import type { Freshness, SearchAnswer } from '../answer.ts';
import type { Page } from './page.ts';
import type { RankedGroups, ResultSet } from './result-set.ts';

export function answerPage(set: ResultSet<RankedGroups>, page: Page, cursor: string | undefined, freshness: Freshness): SearchAnswer {
  const truncated = page.next < set.groups.length;
  const answer: SearchAnswer = {
    mode: set.mode,
    total: set.total,
    files: set.groups.length,
    shown: page.shown,
    groups: page.groups,
    freshness,
    truncated,
  };
  if (set.partial) answer.partial = true;
  if (truncated && cursor !== undefined) answer.cursor = cursor;
  if (set.hint !== undefined) answer.hint = set.hint;
  else if (set.total === 0) answer.hint = 'nothing matched; try fewer or other words, or another mode';
  if (set.note !== undefined) answer.note = set.note;
  if (set.related !== undefined && set.related.length > 0) answer.related = set.related;
  if (set.candidates !== undefined && set.candidates.length > 0) answer.candidates = set.candidates;
  if (set.features !== undefined && set.features.length > 0) answer.features = set.features;
  return answer;
}
