/**
 * `q`'s path stage for a glob (`*.test.ts`, `src/**\/*.vue`): the files whose path matches it, read as one part
 * of `include`'s grammar (core/search/paths/include-globs.ts: unanchored parts match at any depth). One hit per
 * file `{ line: 1, text: path, tags: [path] }`; shallower paths first, then code-unit order.
 */
import type { Group } from '../answer.ts';
import type { ListedFile } from '../file-list/listed-file.ts';
import { includeFilter } from '../paths/include-globs.ts';
import type { ResultSet } from '../query/result-set.ts';

export function globMode(glob: string, files: readonly ListedFile[]): ResultSet {
  const matches = includeFilter(glob);
  const paths = matches === undefined ? [] : files.map((file) => file.path).filter(matches);
  paths.sort((a, b) => depth(a) - depth(b) || a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  const groups: Group[] = paths.map((path, rank) => ({
    path,
    score: 1 / (rank + 1),
    hits: [{ line: 1, text: path, spans: [], tags: [{ kind: 'path' }] }],
  }));
  return { mode: 'q', groups, total: groups.length, partial: false };
}

function depth(path: string): number {
  let count = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) count++;
  return count;
}
