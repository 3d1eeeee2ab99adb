/**
 * `q`, the default mode (docs/intentic-search.md): reads the query and blends the stages that fit it, first fit wins —
 * - a path (`src/app.ts`, `*.test.ts`): the files whose path matches (a glob if it has `* ? [`, else fuzzy),
 *   plus the literal text;
 * - an identifier (`getUserById`, `Widget.render`): its exact definitions, the whole word as text, and prose;
 * - a regex (`fo+|ba[rz]`): `find`;
 * - prose: BM25 over code and docs (embeddings if configured).
 * Several stages are fused by reciprocal rank (k = 60; ×1.5 for a file defining the query, ×1.25 if a path word
 * starts with a query word: core/search/prose/fuse-ranks.ts) and their hits merged per line. Zero hits outside
 * prose fall back to prose (note `answered semantically`).
 */
import { MAX_HITS_PER_FILE, type Group } from '../answer.ts';
import type { QueryKind } from '../prose/classify-query.ts';
import { fuseRanks, type FusionStage, type RankedList } from '../prose/fuse-ranks.ts';
import { mergeHits } from '../query/merge-hits.ts';
import { countHits, type ResultSet } from '../query/result-set.ts';

export interface QStage {
  classify(query: string): QueryKind;
  /** Fuzzy `files`. */
  files(query: string): ResultSet;
  /** Files whose path matches the query as a glob (tag `path`). */
  glob(query: string): ResultSet;
  /** `find` with these options, without its own fallbacks. */
  text(query: string, options: { literal: boolean; word: boolean }): Promise<ResultSet>;
  /** Exact definitions of a name (empty when none). */
  definitions(name: string): Promise<ResultSet>;
  prose(query: string): Promise<ResultSet>;
}

interface Part {
  stage: FusionStage;
  set: ResultSet;
}

export async function qMode(query: string, stage: QStage): Promise<ResultSet> {
  const kind = stage.classify(query);
  if (kind === 'prose') return { ...(await stage.prose(query)), mode: 'q' };
  const parts = await stageParts(query, kind, stage);
  const fused = fuse(query, parts);
  if (fused.total > 0) return fused;
  const prose = await stage.prose(query);
  if (prose.total > 0) return { ...prose, mode: 'q', note: 'answered semantically' };
  return { ...fused, ...(prose.features === undefined ? {} : { features: prose.features }), hint: qHint(kind) };
}

async function stageParts(query: string, kind: Exclude<QueryKind, 'prose'>, stage: QStage): Promise<Part[]> {
  switch (kind) {
    case 'path': {
      const paths = /[*?[]/.test(query) ? stage.glob(query) : stage.files(query);
      return [{ stage: 'files', set: paths }, { stage: 'text', set: await stage.text(query, { literal: true, word: false }) }];
    }
    case 'identifier': {
      // `Widget.render` / `Foo#bar`: the member is what is defined; the whole is what is written.
      const name = query.split(/[.#]/).pop()!;
      const [definitions, text, prose] = await Promise.all([
        stage.definitions(name),
        stage.text(query, { literal: true, word: true }),
        stage.prose(query),
      ]);
      return [{ stage: 'def', set: definitions }, { stage: 'text', set: text }, { stage: 'bm25', set: prose }];
    }
    case 'regex':
      return [{ stage: 'text', set: await stage.text(query, { literal: false, word: false }) }];
  }
}

/** One stage alone keeps its own order; several are fused by rank and their hits merged per line. */
function fuse(query: string, parts: Part[]): ResultSet {
  const live = parts.filter((part) => part.set.groups.length > 0);
  const features = [...new Set(parts.flatMap((part) => part.set.features ?? []))];
  const notes = parts.map((part) => part.set.note).filter((note) => note !== undefined);
  const base = { mode: 'q' as const, ...(features.length > 0 ? { features } : {}), ...(notes.length > 0 ? { note: notes[0]! } : {}) };
  if (live.length === 0) return { ...base, groups: [], total: 0, partial: false };
  if (live.length === 1) return { ...live[0]!.set, ...base };

  const lists: RankedList[] = live.map((part) => ({ stage: part.stage, paths: part.set.groups.map((group) => group.path) }));
  const definitions = new Set(live.find((part) => part.stage === 'def')?.set.groups.map((group) => group.path) ?? []);
  const groupsByPath = new Map<string, Group>();
  for (const part of live) {
    for (const group of part.set.groups) {
      const seen = groupsByPath.get(group.path);
      if (seen === undefined) {
        groupsByPath.set(group.path, { ...group, hits: [...group.hits] });
        continue;
      }
      seen.hits = mergeHits(seen.hits, group.hits);
      if (group.capped) seen.capped = true;
    }
  }
  const groups: Group[] = fuseRanks(lists, { query, definitions }).map((file) => {
    const group = groupsByPath.get(file.path)!;
    if (group.hits.length > MAX_HITS_PER_FILE) {
      group.hits = group.hits.slice(0, MAX_HITS_PER_FILE);
      group.capped = true;
    }
    return { ...group, score: Math.round(file.score * 1e6) / 1e6 };
  });
  const { total, partial } = countHits(groups);
  return { ...base, groups, total, partial };
}

function qHint(kind: QueryKind): string {
  switch (kind) {
    case 'path':
      return 'no file path or text matches; try fewer path parts, or mode=files for a fuzzy path search';
    case 'identifier':
      return 'no definition, use or mention of that name; check its spelling, or try mode=sym for similar names';
    default:
      return 'nothing matches that pattern; try mode=find with literal=true, or plain words';
  }
}
