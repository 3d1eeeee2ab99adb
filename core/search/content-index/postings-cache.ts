/**
 * Decoded posting lists kept for reuse, least recently used dropped first, within a budget of ids. Queries typed
 * a character at a time, or repeated, read the same common trigrams' lists again; decoding those is most of a
 * lookup's time, so a few MiB of decoded ids make a warm lookup several times faster. Cached arrays are shared:
 * callers must not modify them.
 */
import type { Postings } from './postings.ts';

export class PostingsCache {
  private readonly lists = new Map<string, Postings>();
  private held = 0;

  /** `budgetIds`: most ids held (6 bytes each, with their masks). */
  constructor(private readonly budgetIds: number) {}

  get(key: string): Postings | undefined {
    const ids = this.lists.get(key);
    if (ids === undefined) return undefined;
    this.lists.delete(key);
    this.lists.set(key, ids);
    return ids;
  }

  set(key: string, list: Postings): void {
    if (list.ids.length > this.budgetIds / 4) return; // one huge list would evict everything else
    this.lists.set(key, list);
    this.held += list.ids.length;
    for (const [oldest, kept] of this.lists) {
      if (this.held <= this.budgetIds) break;
      this.lists.delete(oldest);
      this.held -= kept.ids.length;
    }
  }

  /** Drops a shard's lists (it was merged away). */
  forget(prefix: string): void {
    for (const [key, list] of this.lists) {
      if (!key.startsWith(prefix)) continue;
      this.lists.delete(key);
      this.held -= list.ids.length;
    }
  }

  get heldIds(): number {
    return this.held;
  }
}
