import type { Change, FeedFrame } from './change-feed.ts';

/**
 * One subscriber's queue: bounded by distinct paths, coalescing, with `ready` and `resync` as flags rather
 * than entries, so a stalled consumer costs at most `max` changes of memory however much happens.
 *
 * - A path already pending is updated in place (keeping its place in line) to its latest state.
 * - One more distinct path than `max` drops everything pending and raises `resync`: the consumer learns
 *   it lost track once, then hears the changes that come after. While a `resync` is still undelivered,
 *   further overflows add nothing: it already says everything they would.
 *
 * The line is an array of paths read from a moving head, beside a map from path to its latest state: taking
 * from the front of a Map instead would make V8 skip every entry deleted before it.
 */
export class PendingFrames {
  private readyHeld = true;
  private readyPending = true;
  private resyncPending = false;
  private readonly latest = new Map<string, Change>();
  private line: string[] = [];
  private head = 0;

  constructor(private readonly max: number) {}

  offer(change: Change): void {
    const path = change.absolutePath;
    if (this.latest.has(path)) {
      this.latest.set(path, change);
      return;
    }
    if (this.latest.size >= this.max) {
      this.overflow();
      return;
    }
    this.latest.set(path, change);
    this.line.push(path);
  }

  /** Everything pending is replaced by one `resync`. */
  overflow(): void {
    this.dropChanges();
    this.resyncPending = true;
  }

  /** `ready` may go out (the feed's starting sources are up). */
  releaseReady(): void {
    this.readyHeld = false;
  }

  /** The next frame, or undefined when there is none to hand out yet. */
  take(): FeedFrame | undefined {
    if (this.readyPending) {
      if (this.readyHeld) return undefined;
      this.readyPending = false;
      return { kind: 'ready' };
    }
    if (this.resyncPending) {
      this.resyncPending = false;
      return { kind: 'resync' };
    }
    if (this.head === this.line.length) return undefined;
    const path = this.line[this.head++]!;
    const change = this.latest.get(path)!;
    this.latest.delete(path);
    if (this.head === this.line.length) this.dropChanges();
    else if (this.head >= 1024 && this.head * 2 >= this.line.length) {
      this.line = this.line.slice(this.head);
      this.head = 0;
    }
    return { kind: 'change', change };
  }

  clear(): void {
    this.dropChanges();
    this.resyncPending = false;
  }

  /** Distinct paths pending (for tests). */
  get size(): number {
    return this.latest.size;
  }

  private dropChanges(): void {
    this.latest.clear();
    this.line = [];
    this.head = 0;
  }
}
