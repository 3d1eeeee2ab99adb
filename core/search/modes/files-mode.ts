/**
 * `files` mode (docs/intentic-search.md): paths, fuzzy, case-insensitive; a group per file with one hit
 * `{ line: 1, text: path, tags: [fuzzy] }`, group score 1/(rank+1). The scoring and its ranking are
 * core/search/paths (shared with the `@` search). The groups are built for the ranks a page reads only: a
 * 2-character query matches tens of thousands of paths of a kernel tree, of which a page shows 50.
 */
import type { ListedFile } from '../file-list/listed-file.ts';
import { fuzzyPathGroup, rankFuzzyPathsLazily } from '../paths/rank-fuzzy-paths.ts';
import type { RankedGroups, ResultSet } from '../query/result-set.ts';

export function filesMode(query: string, files: readonly ListedFile[]): ResultSet<RankedGroups> {
  const ranking = rankFuzzyPathsLazily(query, files);
  const groups: RankedGroups = {
    length: ranking.length,
    slice: (start, end) => ranking.slice(start, end).map((ranked, k) => fuzzyPathGroup(ranked, Math.max(0, start) + k)),
  };
  const set: ResultSet<RankedGroups> = { mode: 'files', groups, total: ranking.length, partial: false };
  if (ranking.length === 0) set.hint = 'no path holds those characters in that order; try fewer characters, or mode=find for text';
  return set;
}
