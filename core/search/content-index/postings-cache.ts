/**
 * Decoded posting lists kept for reuse, least recently used dropped first, within a budget of ids. Queries typed
 * a character at a time, or repeated, read the same common trigrams' lists again; decoding those is most of a
 * lookup's time, so a few MiB of decoded ids make a warm lookup several times faster. Cached arrays are shared:
 * callers must not modify them.
 */
export class PostingsCache {
  private readonly lists = new Map<string, Uint32Array>();
  private held = 0;

  /** `budgetIds`: most ids held (4 bytes each). */
  constructor(private readonly budgetIds: number) {}

  get(key: string): Uint32Array | undefined {
    const ids = this.lists.get(key);
    if (ids === undefined) return undefined;
    this.lists.delete(key);
    this.lists.set(key, ids);
    return ids;
  }

  set(key: string, ids: Uint32Array): void {
    if (ids.length > this.budgetIds / 4) return; // one huge list would evict everything else
    this.lists.set(key, ids);
    this.held += ids.length;
    for (const [oldest, list] of this.lists) {
      if (this.held <= this.budgetIds) break;
      this.lists.delete(oldest);
      this.held -= list.length;
    }
  }

  /** Drops a shard's lists (it was merged away). */
  forget(prefix: string): void {
    for (const [key, list] of this.lists) {
      if (!key.startsWith(prefix)) continue;
      this.lists.delete(key);
      this.held -= list.length;
    }
  }

  get heldIds(): number {
    return this.held;
  }
}
