/**
 * The symbol modes (docs/intentic-search.md): `def` (definitions named exactly the query), `sym` (symbol names, fuzzy or a
 * glob) and `refs` (the name as a whole word minus its definitions, each line tagged with what it does), over the
 * symbol index (core/search/symbols). Parsing is the slow part, so `def` and `refs` parse only the files whose
 * text holds the name (found by the content index), and `sym` answers from the symbols indexed so far.
 */
import picomatch from 'picomatch/posix.js';
import { MAX_HITS_PER_FILE, tagScore, type Group, type Hit, type Tag } from '../answer.ts';
import type { ListedFile } from '../file-list/listed-file.ts';
import { fuzzyPathScore } from '../paths/fuzzy-path-score.ts';
import { countHits, type ResultSet } from '../query/result-set.ts';
import { classifyRefLine } from '../symbols/classify-ref.ts';
import type { SymbolDef } from '../symbols/symbol-def.ts';
import type { SymbolIndex } from '../symbols/symbol-index.ts';
import type { FileTextMatch } from '../text/find-query.ts';
import { textGroups } from './find-mode.ts';

/** At most this many files are parsed to take definition lines out of `refs` (each parse is ~1 MB/s of WASM). */
const REFS_PARSED_FILES = 200;

export interface SymbolStage {
  symbols: SymbolIndex;
  scope: readonly ListedFile[];
  /** The files of the scope whose text holds `name` as a whole word, and their lines (binary files skipped). */
  wordMatches(name: string, caseSensitive: boolean): Promise<Map<string, FileTextMatch>>;
  /**
   * The source files of the scope that hold `name` as a whole word (case-sensitive), those holding a NUL
   * included: text matching skips them, but they are still parsed for symbols (docs/intentic.md).
   */
  sourcesHolding(name: string): Promise<readonly ListedFile[]>;
}

export async function defMode(query: string, stage: SymbolStage): Promise<ResultSet> {
  const candidates = await stage.sourcesHolding(query);
  const found = candidates.length === 0 ? [] : await stage.symbols.definitions(query, candidates);
  if (found.length === 0) {
    const fuzzy = await symMode(query, stage);
    return { ...fuzzy, mode: 'def', note: `no exact definition of "${query}", showing fuzzy symbol matches` };
  }
  // Files in the order of their best definition (exported first, then path), each file's hits in line order.
  const byPath = new Map<string, Hit[]>();
  for (const { path, def } of found) {
    let hits = byPath.get(path);
    if (hits === undefined) byPath.set(path, (hits = []));
    hits.push({ line: def.line, text: def.signature, spans: [], tags: defTags(def) });
  }
  const groups = [...byPath].map(([path, hits], rank): Group => capGroup({ path, score: 1 / (rank + 1), hits: hits.sort((a, b) => a.line - b.line) }));
  const { total, partial } = countHits(groups);
  return { mode: 'def', groups, total, partial };
}

export async function symMode(query: string, stage: SymbolStage): Promise<ResultSet> {
  const glob = /[*?[]/.test(query) ? picomatch(query, { dot: true, noextglob: true, nocase: false }) : undefined;
  const files: { path: string; best: number; hits: Hit[] }[] = [];
  for await (const { path, defs } of stage.symbols.symbols(stage.scope)) {
    const hits: Hit[] = [];
    let best = -1;
    for (const def of defs) {
      const score = glob !== undefined ? (glob(def.name) ? 1 : undefined) : fuzzyPathScore(query, def.name);
      if (score === undefined) continue;
      best = Math.max(best, score);
      // Why it matched: every hit is a definition (`def`); a fuzzy name also says how well it matched (as
      // `files` tags a fuzzy path), a glob only names it.
      const tags: Tag[] = glob !== undefined ? defTags(def) : fuzzyDefTags(def, tagScore(score));
      hits.push({ line: def.line, text: `${def.kind.padEnd(6)} ${def.signature}`, spans: [], tags });
    }
    if (hits.length > 0) files.push({ path, best, hits: hits.sort((a, b) => a.line - b.line) });
  }
  files.sort((a, b) => b.best - a.best || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const groups = files.map(({ path, hits }, rank) => capGroup({ path, score: 1 / (rank + 1), hits }));
  const { total, partial } = countHits(groups);
  const set: ResultSet = { mode: 'sym', groups, total, partial };
  const status = stage.symbols.status();
  if (status.state === 'building') set.note = `symbols are still being indexed (${Math.floor(status.progress * 100)}%): some files are not searched yet`;
  if (groups.length === 0) set.hint = glob !== undefined ? 'no symbol name matches that glob (it is case-sensitive)' : 'no symbol name holds those characters in that order; try fewer, or mode=find';
  return set;
}

export async function refsMode(query: string, stage: SymbolStage): Promise<ResultSet> {
  const matches = await stage.wordMatches(query, false);
  const ranked = textGroups(matches);
  // Definition lines (of the name, any case) come out of the files parsed; the best-ranked files first.
  const byPath = new Map(stage.scope.map((file) => [file.path, file]));
  const parsed = ranked.slice(0, REFS_PARSED_FILES).map((group) => byPath.get(group.path)).filter((file) => file !== undefined);
  const definitionLines = new Map<string, Set<number>>();
  const lower = query.toLowerCase();
  for await (const { path, defs } of stage.symbols.symbols(parsed)) {
    const lines = new Set(defs.filter((def) => def.name.toLowerCase() === lower).map((def) => def.line));
    if (lines.size > 0) definitionLines.set(path, lines);
  }
  const groups: Group[] = [];
  for (const group of ranked) {
    const skip = definitionLines.get(group.path);
    const hits = group.hits
      .filter((hit) => skip === undefined || !skip.has(hit.line))
      .map((hit): Hit => ({ ...hit, tags: [{ kind: classifyRefLine(hit.text, query, hit.spans.map((span) => span.start)) }] }));
    if (hits.length > 0) groups.push({ ...group, hits });
  }
  groups.forEach((group, rank) => (group.score = 1 / (rank + 1)));
  const { total, partial } = countHits(groups);
  const set: ResultSet = { mode: 'refs', groups, total, partial };
  if (groups.length === 0) set.hint = 'no use of that name as a whole word outside its definitions; check the spelling, or try mode=find';
  return set;
}

function defTags(def: SymbolDef): Tag[] {
  return def.heuristic ? [{ kind: 'def' }, { kind: 'heuristic' }] : [{ kind: 'def' }];
}

/** In the answer's tag order (docs/intentic.md): def, (path,) fuzzy, …, heuristic. */
function fuzzyDefTags(def: SymbolDef, score: number): Tag[] {
  const tags: Tag[] = [{ kind: 'def' }, { kind: 'fuzzy', score }];
  if (def.heuristic) tags.push({ kind: 'heuristic' });
  return tags;
}

function capGroup(group: Group): Group {
  if (group.hits.length <= MAX_HITS_PER_FILE) return group;
  return { ...group, hits: group.hits.slice(0, MAX_HITS_PER_FILE), capped: true };
}
