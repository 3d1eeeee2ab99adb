import { isInside } from '../../adapters/fs/posix-path.ts';
import { asSubscription } from './as-subscription.ts';
import type { Change, ChangeSubscription, FeedFrame } from './change-feed.ts';
import { PendingFrames } from './pending-frames.ts';

/**
 * One subscription: a filter, its bounded queue, and the consumer's pending `next()` calls. The feed pushes
 * into it synchronously (publish never waits for a consumer); the consumer pulls at its own pace.
 */
export class Subscriber {
  private readonly pending: PendingFrames;
  private readonly waiters: ((result: IteratorResult<FeedFrame, undefined>) => void)[] = [];
  private closed = false;

  constructor(
    /** Only changes at or below this absolute path. */
    private readonly under: string | undefined,
    maxQueue: number,
    private readonly onClose: (subscriber: Subscriber) => void,
  ) {
    this.pending = new PendingFrames(maxQueue);
  }

  admits(path: string): boolean {
    return this.under === undefined || isInside(this.under, path);
  }

  deliver(change: Change): void {
    if (this.closed) return;
    this.pending.offer(change);
    this.wake();
  }

  resync(): void {
    if (this.closed) return;
    this.pending.overflow();
    this.wake();
  }

  releaseReady(): void {
    this.pending.releaseReady();
    this.wake();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.pending.clear();
    for (const waiter of this.waiters.splice(0)) waiter({ done: true, value: undefined });
    this.onClose(this);
  }

  next(): Promise<IteratorResult<FeedFrame, undefined>> {
    if (this.closed) return Promise.resolve({ done: true, value: undefined });
    const frame = this.waiters.length === 0 ? this.pending.take() : undefined;
    if (frame) return Promise.resolve({ done: false, value: frame });
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    while (this.waiters.length > 0) {
      const frame = this.pending.take();
      if (!frame) return;
      this.waiters.shift()!({ done: false, value: frame });
    }
  }

  /** The consumer's face of this subscriber. */
  handle(): ChangeSubscription {
    return asSubscription(() => this.next(), () => this.close());
  }
}
