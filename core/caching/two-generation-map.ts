/**
 * A map that forgets: it remembers at least `capacity` and at most 2 × `capacity` keys, the most recently set
 * or read ones. For caches of a long-lived consumer keyed by paths, whose keys never end otherwise (every temp
 * file a save writes has a name of its own). Edge-clean.
 *
 * Two generations rather than one ordered map (the "hashlru" scheme): evicting a Map's oldest entry means
 * iterating from its start, which V8 makes slower the more entries were deleted before it, while swapping a full
 * generation out is O(1). A key read from the older generation moves to the newer one, so what is in use stays.
 */
export class TwoGenerationMap<K, V> {
  private current = new Map<K, V>();
  private previous = new Map<K, V>();

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
  }

  get(key: K): V | undefined {
    if (this.current.has(key)) return this.current.get(key);
    if (!this.previous.has(key)) return undefined;
    const value = this.previous.get(key)!;
    this.previous.delete(key);
    this.set(key, value);
    return value;
  }

  has(key: K): boolean {
    return this.current.has(key) || this.previous.has(key);
  }

  set(key: K, value: V): this {
    if (!this.current.has(key)) {
      this.previous.delete(key); // the older copy would come back once this one is swapped out
      if (this.current.size >= this.capacity) {
        this.previous = this.current;
        this.current = new Map();
      }
    }
    this.current.set(key, value);
    return this;
  }

  delete(key: K): boolean {
    const inCurrent = this.current.delete(key);
    return this.previous.delete(key) || inCurrent;
  }

  /** Keys remembered now: between `capacity` and 2 × `capacity` once that many were set. */
  get size(): number {
    return this.current.size + this.previous.size;
  }
}
