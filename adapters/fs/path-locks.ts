/**
 * Per-key async mutexes: `run(keys, fn)` runs `fn` once it holds every key, in FIFO order per key. There is
 * no global lock (calls on different keys run concurrently), and an entry lives only while someone holds or
 * waits for its key, so the table never grows with the number of paths ever written.
 */
export class PathLocks {
  /** Per key: a promise that settles when the last holder or waiter so far has released it. */
  private readonly tails = new Map<string, Promise<void>>();

  /** Keys currently held or waited for. */
  get size(): number {
    return this.tails.size;
  }

  async run<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
    // One global acquisition order, so two calls that each need several keys can never deadlock.
    const ordered = [...new Set(keys)].sort();
    const releases: Array<() => void> = [];
    try {
      for (const key of ordered) releases.push(await this.acquire(key));
      return await fn();
    } finally {
      for (const release of releases.reverse()) release();
    }
  }

  private async acquire(key: string): Promise<() => void> {
    const previous = this.tails.get(key);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const tail = previous ? previous.then(() => released) : released;
    this.tails.set(key, tail);
    if (previous) await previous;
    return () => {
      release();
      // Nobody queued behind us: the key is free, and its entry goes.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }
}
