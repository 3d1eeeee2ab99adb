/**
 * `ast` (docs/intentic-search.md): a syntax pattern (`$X` one node, `$$$` any run) matched on parsed files, tag `text`.
 * **Ours:** the route names no language, so the pattern is tried in each file's own (core/search/symbols/
 * ast-pattern.ts compiles it per grammar; where it does not parse it matches nothing). Only files holding every
 * word of the pattern are read and parsed (the content index finds them).
 */
import type { Group } from '../answer.ts';
import { MAX_HITS_PER_FILE } from '../answer.ts';
import type { ListedFile } from '../file-list/listed-file.ts';
import { countHits, type ResultSet } from '../query/result-set.ts';
import type { AstMatcher } from '../symbols/ast-matcher.ts';
import { AstPattern } from '../symbols/ast-pattern.ts';
import { isSourcePath } from '../symbols/source-language.ts';

export interface AstStage {
  /** Runs the pattern over one file (Node: in the parse worker); undefined when the runtime has no parsers. */
  match: AstMatcher | undefined;
  /** The source files of the scope that may hold every one of `words` (case-sensitive). */
  candidates(words: readonly string[]): Promise<readonly ListedFile[]>;
  readText(file: ListedFile): Promise<string | undefined>;
}

export async function astMode(query: string, stage: AstStage): Promise<ResultSet> {
  if (stage.match === undefined) {
    return { mode: 'ast', groups: [], total: 0, partial: false, features: ['ast: no parsers on this runtime'], hint: 'syntax search needs the parsers of the Node daemon; try mode=find' };
  }
  const pattern = new AstPattern(query);
  const files = (await stage.candidates(pattern.literals)).filter((file) => isSourcePath(file.path));
  const found: { path: string; hits: Group['hits']; capped: boolean }[] = [];
  for (const file of files) {
    const text = await stage.readText(file);
    // The index's candidates may hold the words only ASCII-folded: only exact holders are sent to be parsed.
    if (text === undefined || !pattern.literals.every((word) => text.includes(word))) continue;
    const lines = await stage.match(query, file.path, text);
    if (lines.length === 0) continue;
    found.push({
      path: file.path,
      capped: lines.length > MAX_HITS_PER_FILE,
      hits: lines.slice(0, MAX_HITS_PER_FILE).map((line) => ({ line: line.line, text: line.text, spans: line.spans, tags: [{ kind: 'text' }] })),
    });
  }
  found.sort((a, b) => b.hits.length - a.hits.length || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const groups: Group[] = found.map(({ path, hits, capped }, rank) => ({ path, score: 1 / (rank + 1), hits, ...(capped ? { capped: true } : {}) }));
  const { total, partial } = countHits(groups);
  const set: ResultSet = { mode: 'ast', groups, total, partial };
  if (groups.length === 0) set.hint = 'no syntax matches that pattern; $X stands for one node, $$$ for any run of them — or try mode=find';
  return set;
}
