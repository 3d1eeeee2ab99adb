/**
 * `find`'s text matches over a scope of files: from the content index when it is ready (its candidates, always
 * verified against the bytes by the scanner, so no false positives), else by scanning every file — as a walk
 * still running finds them, when the scope is such a walk (./query-scope.ts). Ignored files (searched with
 * includeIgnored) are never indexed, so they are always scanned.
 */
import { MAX_SEARCHED_FILE_BYTES } from '../answer.ts';
import type { ContentIndex, IndexPlan } from '../content-index/content-index.ts';
import type { ListedFile } from '../file-list/listed-file.ts';
import type { CompiledFind, FileTextMatch, FindQuery } from '../text/find-query.ts';
import type { ScanTarget, TextScanner } from '../text/scanner.ts';
import type { QueryScope } from './query-scope.ts';

export interface TextSearchOptions {
  scanner: TextScanner;
  index: ContentIndex | undefined;
  /** A `Date.now()` time past which the search fails rather than answer part of the set. */
  deadlineMs: number;
}

export async function searchText(
  scope: QueryScope,
  query: FindQuery,
  compiled: CompiledFind,
  options: TextSearchOptions,
): Promise<Map<string, FileTextMatch>> {
  if (scope.batches !== undefined && options.index?.status().state !== 'ready') {
    return options.scanner.scan({ query, files: scope.batches(), deadlineMs: options.deadlineMs });
  }
  const files = await textTargets(await scope.files(), compiled, options.index);
  if (files.length === 0) return new Map();
  return options.scanner.scan({ query, files, deadlineMs: options.deadlineMs });
}

/** The files worth reading for `compiled`: the index's candidates among the indexed ones, plus every ignored one. */
export async function textTargets(
  scope: readonly ListedFile[],
  plan: IndexPlan,
  index: ContentIndex | undefined,
): Promise<readonly ScanTarget[]> {
  if (index === undefined || index.status().state !== 'ready') {
    return scope.filter((file) => file.size <= MAX_SEARCHED_FILE_BYTES);
  }
  const indexed = indexedPart(scope);
  const candidates: ScanTarget[] = await index.candidates(plan, indexed);
  if (indexed === scope) return candidates;
  for (const file of scope) if (file.ignored && file.size <= MAX_SEARCHED_FILE_BYTES) candidates.push(file);
  return candidates;
}

/**
 * The files of `scope` the index covers (the non-ignored ones), kept per scope array: the file list hands out
 * the same array until it changes, and a pass over 78 579 files of several object shapes costs milliseconds.
 */
const indexedParts = new WeakMap<readonly ListedFile[], readonly ListedFile[]>();

function indexedPart(scope: readonly ListedFile[]): readonly ListedFile[] {
  let indexed = indexedParts.get(scope);
  if (indexed === undefined) {
    indexed = scope.some((file) => file.ignored) ? scope.filter((file) => !file.ignored) : scope;
    indexedParts.set(scope, indexed);
  }
  return indexed;
}
