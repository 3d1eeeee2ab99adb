/**
 * The query planner: from `required` (an AND of ORs of literals every match contains, core/search/text's
 * compileFind) to the ids of the files that may match. A literal's trigrams are intersected rarest first (the
 * smallest list sets the work); then each remaining file's GramMasks (./trigrams.ts) must agree with the literal
 * as a phrase: its trigrams at offsets equal mod 8 (one common start), each followed by the literal's next byte.
 * Measured on the kernel: decoding a list costs a few ns an id, verifying a candidate 50-250 µs (a read and a
 * scan), so every list that drops even one candidate pays for itself; only a long literal's tail (past
 * MAX_LISTS_PER_LITERAL) is left to the verification.
 */
import { indexOfSorted, intersectSorted, unionSorted, type Postings } from './postings.ts';
import type { Shard } from './shard.ts';
import { literalGramRuns, type LiteralGram } from './trigrams.ts';

export interface IndexPlan {
  readonly required: readonly (readonly string[])[];
  readonly caseSensitive: boolean;
  /** Files holding a NUL (never indexed) are candidates too (FindQuery.binary, core/search/text). */
  readonly binary?: boolean;
}

/**
 * An AND of clauses, each an OR of alternatives (literals), each an AND of runs of trigrams whose offsets are
 * fixed relative to each other (literalGramRuns).
 */
export type TrigramQuery = readonly (readonly (readonly (readonly LiteralGram[])[])[])[];

/** Most lists intersected per literal. */
const MAX_LISTS_PER_LITERAL = 16;

/**
 * The trigram form of a plan, or undefined when it restricts nothing (`required` empty, or every clause has an
 * alternative without trigrams: shorter than three bytes, or only non-ASCII ones when case-insensitive).
 */
export function trigramQuery(plan: IndexPlan): TrigramQuery | undefined {
  const clauses: LiteralGram[][][][] = [];
  for (const clause of plan.required) {
    if (clause.length === 0) continue;
    const alternatives = clause.map((literal) => literalGramRuns(literal, plan.caseSensitive));
    if (alternatives.some((runs) => runs.length === 0)) continue;
    clauses.push(alternatives);
  }
  return clauses.length === 0 ? undefined : clauses;
}

interface GramList {
  gram: LiteralGram;
  run: number;
  slot: number;
  bytes: number;
}

async function literalIds(shard: Shard, runs: readonly (readonly LiteralGram[])[]): Promise<Uint32Array> {
  const grams: GramList[] = [];
  for (let run = 0; run < runs.length; run++) {
    for (const gram of runs[run]!) {
      const slot = shard.find(gram.trigram);
      if (slot < 0) return new Uint32Array(0);
      grams.push({ gram, run, slot, bytes: shard.listBytesAt(slot) });
    }
  }
  grams.sort((a, b) => a.bytes - b.bytes);
  const used = grams.slice(0, MAX_LISTS_PER_LITERAL);
  const lists: Postings[] = [];
  let ids: Uint32Array | undefined;
  for (const { slot } of used) {
    const list = await shard.postingsAt(slot);
    lists.push(list);
    ids = ids === undefined ? list.ids : intersectSorted(ids, list.ids);
    if (ids.length === 0) return ids;
  }
  return phraseFilter(ids!, used, lists, runs.length);
}

/**
 * The ids whose masks fit the literal: per run, the trigrams' start offsets (rotated back by their offset in the
 * literal) share a residue mod 8, and each trigram is followed by the literal's next byte somewhere. Every list
 * in `lists` holds every id of `ids` (they are its intersection), so one forward walk per list finds its masks.
 */
function phraseFilter(ids: Uint32Array, grams: readonly GramList[], lists: readonly Postings[], runCount: number): Uint32Array {
  const cursors = new Uint32Array(lists.length);
  const starts = new Uint8Array(runCount);
  const out = new Uint32Array(ids.length);
  let n = 0;
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    starts.fill(0xff);
    let fits = true;
    for (let j = 0; j < lists.length && fits; j++) {
      const list = lists[j]!;
      let at = cursors[j]!;
      while (list.ids[at]! < id) at++;
      cursors[j] = at;
      const mask = list.masks[at]!;
      const { gram, run } = grams[j]!;
      if (gram.next !== 0 && (mask & gram.next) === 0) fits = false;
      const shift = gram.offset & 7;
      const loc = mask & 0xff;
      starts[run] = starts[run]! & (((loc >>> shift) | (loc << (8 - shift))) & 0xff);
      if (starts[run] === 0) fits = false;
    }
    if (fits) out[n++] = id;
  }
  return out.subarray(0, n);
}

/** The ids of `shard`'s files that may match `query` (ascending; dead ids included, the caller drops them). */
export async function shardCandidates(shard: Shard, query: TrigramQuery): Promise<Uint32Array> {
  let result: Uint32Array | undefined;
  for (const clause of query) {
    let union: Uint32Array = new Uint32Array(0);
    for (const alternative of clause) union = unionSorted(union, await literalIds(shard, alternative));
    result = result === undefined ? union : intersectSorted(result, union);
    if (result.length === 0) break;
  }
  return result ?? new Uint32Array(0);
}

/** Whether a file whose sorted trigram set is `trigrams` (the in-memory delta) may match `query`. */
export function trigramSetMayMatch(trigrams: Uint32Array, query: TrigramQuery): boolean {
  return query.every((clause) => clause.some((runs) => runs.every((run) => run.every((gram) => indexOfSorted(trigrams, gram.trigram) >= 0))));
}
