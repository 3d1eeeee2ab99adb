/**
 * `files` mode (001-search.md): paths, fuzzy, case-insensitive; a group per file with one hit
 * `{ line: 1, text: path, tags: [fuzzy] }`, group score 1/(rank+1). The scoring and its ranking are
 * core/search/paths (shared with the `@` search).
 */
import type { ListedFile } from '../file-list/listed-file.ts';
import { fuzzyPathGroup, rankFuzzyPaths } from '../paths/rank-fuzzy-paths.ts';
import type { ResultSet } from '../query/result-set.ts';

export function filesMode(query: string, files: readonly ListedFile[]): ResultSet {
  const groups = rankFuzzyPaths(query, files).map(fuzzyPathGroup);
  const set: ResultSet = { mode: 'files', groups, total: groups.length, partial: false };
  if (groups.length === 0) set.hint = 'no path holds those characters in that order; try fewer characters, or mode=find for text';
  return set;
}
