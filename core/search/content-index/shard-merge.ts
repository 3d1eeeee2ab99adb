/**
 * Merging shards: every delta flush adds a small shard, and each shard costs every query a table search and a
 * read per trigram, so small shards are merged into one now and then (the lists' union, ids nothing refers to
 * any more dropped). Shard id ranges may interleave (a delta spans ids handed out around a bulk build), so lists
 * are merged as sorted sets, not concatenated.
 */
import { unionPostings, type Postings } from './postings.ts';
import type { Shard } from './shard.ts';
import { encodeShard } from './shard-builder.ts';

/**
 * The merged shard's bytes, or undefined when none of the shards' ids is live any more. `pause` is awaited every
 * few hundred lists (the index passes its event-loop yield).
 */
export async function mergeShards(
  shards: readonly Shard[],
  live: Uint8Array,
  pause: () => Promise<void> = async () => {},
): Promise<Uint8Array | undefined> {
  const base = Math.min(...shards.map((shard) => shard.base));
  const end = Math.max(...shards.map((shard) => shard.base + shard.span));
  const lists = new Map<number, Postings>();
  let seen = 0;
  for (const shard of shards) {
    for await (const [trigram, list] of shard.lists()) {
      if ((++seen & 255) === 0) await pause();
      const kept = liveOnly(list, live);
      if (kept.ids.length === 0) continue;
      const previous = lists.get(trigram);
      lists.set(trigram, previous === undefined ? kept : unionPostings(previous, kept));
    }
  }
  if (lists.size === 0) return undefined;
  const trigrams = Uint32Array.from(lists.keys()).sort();
  const starts = new Uint32Array(trigrams.length + 1);
  let total = 0;
  for (let i = 0; i < trigrams.length; i++) {
    starts[i] = total;
    total += lists.get(trigrams[i]!)!.ids.length;
  }
  starts[trigrams.length] = total;
  const ids = new Uint32Array(total);
  const masks = new Uint16Array(total);
  for (let i = 0; i < trigrams.length; i++) {
    const list = lists.get(trigrams[i]!)!;
    masks.set(list.masks, starts[i]!);
    for (let j = 0; j < list.ids.length; j++) ids[starts[i]! + j] = list.ids[j]! - base;
  }
  return encodeShard(base, end - base, trigrams, starts, ids, masks);
}

function liveOnly(list: Postings, live: Uint8Array): Postings {
  const ids = new Uint32Array(list.ids.length);
  const masks = new Uint16Array(list.ids.length);
  let n = 0;
  for (let i = 0; i < list.ids.length; i++) {
    if (live[list.ids[i]!] !== 1) continue;
    ids[n] = list.ids[i]!;
    masks[n++] = list.masks[i]!;
  }
  return { ids: ids.subarray(0, n), masks: masks.subarray(0, n) };
}
