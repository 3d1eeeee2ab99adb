/**
 * The prose stage (docs/intentic-search.md `q`: "prose (BM25 over code and docs; embeddings if configured)"): the BM25
 * index's best files, each with its best lines, re-scored by embeddings when an endpoint is configured and the
 * two lists fused by reciprocal rank. Hits carry no spans (not text matches); tags `sem` and `bm25` with scores.
 */
import { MAX_HITS_PER_FILE, tagScore, type Group, type Hit, type Tag } from '../answer.ts';
import { SEM_NOT_CONFIGURED, type EmbeddingsStage } from '../prose/embeddings.ts';
import { fuseRanks, type RankedList } from '../prose/fuse-ranks.ts';
import type { ProseIndex, ProseResult } from '../prose/prose-index.ts';
import { semanticChunks } from '../prose/semantic-chunks.ts';
import { countHits, type ResultSet } from '../query/result-set.ts';

/** Files the prose stage ranks per query: a page's worth, since prose ranks fall off fast. */
const PROSE_FILES = 300;

export interface ProseStage {
  index: ProseIndex;
  /** Absent: no endpoint configured. */
  embeddings: EmbeddingsStage | undefined;
  /** Whether a path is in the query's scope (include, ignore rules). */
  inScope(path: string): boolean;
  /** A file's text, for results whose text the capped index did not keep. */
  readText(path: string): Promise<string | undefined>;
}

export async function proseMode(query: string, stage: ProseStage): Promise<ResultSet> {
  const results = stage.index.search(query, { limit: PROSE_FILES, filter: stage.inScope });
  await Promise.all(
    results.map(async (result) => {
      if (!result.textless) return;
      const text = await stage.readText(result.path);
      if (text === undefined) return;
      const lines = stage.index.linesOf(query, text);
      result.lines = lines.lines;
      if (lines.capped) result.capped = true;
    }),
  );
  const features: string[] = [];
  let semantic = new Map<string, number>();
  if (stage.embeddings === undefined) features.push(SEM_NOT_CONFIGURED);
  else if (results.length > 0) {
    const scored = await stage.embeddings.semanticScores(query, semanticChunks(results));
    if (scored.off !== undefined) features.push(scored.off);
    semantic = scored.scores;
  }

  const byPath = new Map(results.map((result) => [result.path, result]));
  const lists: RankedList[] = [{ stage: 'bm25', paths: results.map((result) => result.path) }];
  if (semantic.size > 0) {
    const bySemantic = [...semantic].sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0)).map(([path]) => path);
    lists.push({ stage: 'sem', paths: bySemantic });
  }
  const fused = semantic.size > 0 ? fuseRanks(lists, { query }) : results.map((result) => ({ path: result.path, score: result.score }));
  const groups: Group[] = [];
  for (const file of fused) {
    const result = byPath.get(file.path);
    if (result === undefined || result.lines.length === 0) continue;
    groups.push(proseGroup(result, semantic.get(file.path)));
  }
  // Scores become ranks so `score` never rises across q's fused stages; prose's own order is kept.
  groups.forEach((group, rank) => (group.score = 1 / (rank + 1)));
  const { total, partial } = countHits(groups);
  const set: ResultSet = { mode: 'q', groups, total, partial };
  if (features.length > 0) set.features = features;
  if (groups.length === 0) set.hint = 'no file uses those words; try other words, a name (mode=def), or mode=find for exact text';
  return set;
}

function proseGroup(result: ProseResult, semanticScore: number | undefined): Group {
  const tags: Tag[] = [];
  if (semanticScore !== undefined) tags.push({ kind: 'sem', score: tagScore(semanticScore) });
  tags.push({ kind: 'bm25', score: tagScore(result.normalized) });
  const hits: Hit[] = result.lines.slice(0, MAX_HITS_PER_FILE).map((line) => ({
    line: line.line,
    text: line.text,
    spans: [],
    tags: tags.map((tag) => ({ ...tag })),
  }));
  const group: Group = { path: result.path, score: result.score, hits };
  if (result.capped) group.capped = true;
  return group;
}
