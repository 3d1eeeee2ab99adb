/**
 * The query planner: from `required` (an AND of ORs of literals every match contains, core/search/text's
 * compileFind) to the ids of the files that may match. A literal's trigrams are intersected rarest first (the
 * smallest list sets the work). Measured on the kernel: decoding a list costs about 2 ns an id, verifying a
 * candidate 50-250 µs (a read and a scan), so every list that drops even one candidate pays for itself; only a
 * long literal's tail (past MAX_LISTS_PER_LITERAL) is left to the verification.
 */
import { intersectSorted, unionSorted } from './postings.ts';
import type { Shard } from './shard.ts';
import { literalTrigrams } from './trigrams.ts';

export interface IndexPlan {
  readonly required: readonly (readonly string[])[];
  readonly caseSensitive: boolean;
}

/** An AND of clauses, each an OR of alternatives, each an AND of trigrams. */
export type TrigramQuery = readonly (readonly (readonly number[])[])[];

/** Most lists intersected per literal. */
const MAX_LISTS_PER_LITERAL = 16;

/**
 * The trigram form of a plan, or undefined when it restricts nothing (`required` empty, or every clause has an
 * alternative without trigrams: shorter than three bytes, or only non-ASCII ones when case-insensitive).
 */
export function trigramQuery(plan: IndexPlan): TrigramQuery | undefined {
  const clauses: number[][][] = [];
  for (const clause of plan.required) {
    if (clause.length === 0) continue;
    const alternatives = clause.map((literal) => literalTrigrams(literal, plan.caseSensitive));
    if (alternatives.some((trigrams) => trigrams.length === 0)) continue;
    clauses.push(alternatives);
  }
  return clauses.length === 0 ? undefined : clauses;
}

async function literalIds(shard: Shard, trigrams: readonly number[]): Promise<Uint32Array> {
  const slots: { slot: number; bytes: number }[] = [];
  for (const t of trigrams) {
    const slot = shard.find(t);
    if (slot < 0) return new Uint32Array(0);
    slots.push({ slot, bytes: shard.listBytesAt(slot) });
  }
  slots.sort((a, b) => a.bytes - b.bytes);
  let ids = await shard.postingsAt(slots[0]!.slot);
  for (let i = 1; i < slots.length && i < MAX_LISTS_PER_LITERAL && ids.length > 0; i++) {
    ids = intersectSorted(ids, await shard.postingsAt(slots[i]!.slot));
  }
  return ids;
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

function holds(sorted: Uint32Array, trigram: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const t = sorted[mid]!;
    if (t === trigram) return true;
    if (t < trigram) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** Whether a file whose sorted trigram set is `trigrams` (the in-memory delta) may match `query`. */
export function trigramSetMayMatch(trigrams: Uint32Array, query: TrigramQuery): boolean {
  return query.every((clause) => clause.some((alternative) => alternative.every((t) => holds(trigrams, t))));
}
