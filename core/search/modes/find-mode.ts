/**
 * `find` mode (docs/intentic-search.md): text search by line. A regex unless `literal` (a pattern that does not compile runs
 * as literal text: note `ran as literal text`); with zero hits the grep-style escapes `\| \+ \? \( \) \{ \}` drop
 * their backslash and it reruns (note `escapes rewritten`); still zero, not `literal`, and the query a phrase: the
 * prose engine answers (note `answered semantically`).
 *
 * Ranking: the files with the most matching lines first (a file that is mostly about the query beats one that
 * mentions it), ties by path; group score 1/(rank+1).
 */
import type { Group } from '../answer.ts';
import { countHits, type ResultSet } from '../query/result-set.ts';
import type { CompiledFind, FileTextMatch, FindQuery } from '../text/find-query.ts';

export interface FindStage {
  compile(query: FindQuery): CompiledFind;
  rewriteEscapes(pattern: string): string | undefined;
  /** Every file in scope with hits, keyed by path (the index when fresh, else a scan). */
  search(query: FindQuery, compiled: CompiledFind): Promise<Map<string, FileTextMatch>>;
  isPhrase(query: string): boolean;
  /** The prose answer (BM25, embeddings if configured) for the same scope. */
  prose(query: string): Promise<ResultSet>;
}

export interface FindOptions {
  literal: boolean;
  caseSensitive: boolean;
  word: boolean;
}

export async function findMode(query: string, options: FindOptions, stage: FindStage): Promise<ResultSet> {
  const asked: FindQuery = { pattern: query, ...options };
  let compiled = stage.compile(asked);
  let matches = await stage.search(asked, compiled);
  let note = compiled.ranAsLiteral ? 'ran as literal text' : undefined;

  if (matches.size === 0 && !options.literal) {
    const rewritten = stage.rewriteEscapes(query);
    if (rewritten !== undefined) {
      const retry: FindQuery = { ...asked, pattern: rewritten };
      compiled = stage.compile(retry);
      matches = await stage.search(retry, compiled);
      note = 'escapes rewritten';
    }
  }
  if (matches.size === 0 && !options.literal && stage.isPhrase(query)) {
    const prose = await stage.prose(query);
    if (prose.groups.length > 0) return { ...prose, mode: 'find', note: 'answered semantically' };
  }

  const groups = textGroups(matches);
  const { total, partial } = countHits(groups);
  const set: ResultSet = { mode: 'find', groups, total, partial };
  if (note !== undefined) set.note = note;
  if (groups.length === 0) set.hint = findHint(options);
  return set;
}

/** Text matches as groups, most matching lines first, ties by path; score 1/(rank+1). */
export function textGroups(matches: ReadonlyMap<string, FileTextMatch>): Group[] {
  const ranked = [...matches].sort(
    ([pathA, a], [pathB, b]) => b.hits.length - a.hits.length || (pathA < pathB ? -1 : pathA > pathB ? 1 : 0),
  );
  return ranked.map(([path, match], rank) => {
    const group: Group = { path, score: 1 / (rank + 1), hits: match.hits };
    if (match.capped) group.capped = true;
    return group;
  });
}

function findHint(options: FindOptions): string {
  const loosen: string[] = [];
  if (options.caseSensitive) loosen.push('drop caseSensitive');
  if (options.word) loosen.push('drop word');
  loosen.push('check include', 'try includeIgnored=true for installed packages and build output', 'or mode=q');
  return `no line matches; ${loosen.join(', ')}`;
}
