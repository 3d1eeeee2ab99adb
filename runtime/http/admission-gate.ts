/**
 * How many HTTP requests the daemon works on at once, and a fair line for the rest.
 *
 * Without it a saturated daemon starts every request it reads: a thousand requests share one event loop and the
 * four threads of the file system's pool, each file operation queues behind all of the others', and a request made
 * of several of them in a row (a write: folder, temp file, data, rename) or queued behind another on the same path
 * takes many times the median — past a client's timeout while a quicker request still answers. With a bounded
 * number at work and the rest waiting in arrival order, every request waits about as long as the others (the line's
 * length over the daemon's rate), and one that has waited `maxWaitMs` without a turn is refused: a prompt 429 the
 * client can retry, never a request left to time out. The line itself is bounded too (`maxQueued`).
 *
 * A request holds its place from its arrival until its handler has produced the response: streaming the body of
 * a download or an event stream afterwards holds none. docs/architecture.md#limits.
 */

export interface AdmissionLimits {
  /** Requests being worked on at once. */
  maxActive: number;
  /** Requests waiting for a turn; past it a request is refused at once. */
  maxQueued: number;
  /** How long a request may wait for its turn before it is refused. */
  maxWaitMs: number;
}

/** Why a request got no turn: the line was full, or its wait ran out. */
export type Refusal = 'queue-full' | 'waited-too-long';

interface Waiter {
  admit(): void;
  timer: ReturnType<typeof setTimeout>;
  /** Its wait ran out: it was answered already and keeps no place in line. */
  gone: boolean;
}

export class AdmissionGate {
  readonly #limits: AdmissionLimits;
  #active = 0;
  /** Arrival order; `#head` is the next one in line (no shift(): a thousand waiters would make it O(n²)). */
  #line: (Waiter | undefined)[] = [];
  #head = 0;
  #waiting = 0;
  /** Places in #line held by waiters whose wait ran out (skipped when reached, dropped in bulk when many). */
  #gone = 0;

  constructor(limits: AdmissionLimits) {
    this.#limits = limits;
  }

  /** Requests being worked on and waiting, now. */
  get load(): { active: number; waiting: number } {
    return { active: this.#active, waiting: this.#waiting };
  }

  /**
   * Runs `work` once it has a turn and answers what it answers; `refuse` answers instead when the line is full or the
   * wait ran out. The turn is given back when `work` settles.
   */
  async run<T>(work: () => Promise<T>, refuse: (why: Refusal) => T): Promise<T> {
    if (this.#active >= this.#limits.maxActive) {
      if (this.#waiting >= this.#limits.maxQueued) return refuse('queue-full');
      const admitted = await this.#wait();
      if (!admitted) return refuse('waited-too-long');
    } else {
      this.#active++;
    }
    try {
      return await work();
    } finally {
      this.#release();
    }
  }

  /** Resolves true with a turn taken (counted in #active by whoever admitted it), or false when the wait ran out. */
  #wait(): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        admit: () => resolve(true),
        timer: setTimeout(() => {
          waiter.gone = true; // #release skips it
          this.#waiting--;
          this.#gone++;
          this.#dropGone(); // while every turn is held, nothing reaches them: the line must not grow without end
          resolve(false);
        }, this.#limits.maxWaitMs),
        gone: false,
      };
      this.#line.push(waiter);
      this.#waiting++;
    });
  }

  #release(): void {
    while (this.#head < this.#line.length) {
      const next = this.#line[this.#head];
      this.#line[this.#head++] = undefined;
      if (next === undefined) continue;
      if (next.gone) {
        this.#gone--;
        continue;
      }
      clearTimeout(next.timer);
      this.#waiting--;
      this.#compact();
      next.admit(); // the turn passes straight on: #active is unchanged
      return;
    }
    this.#active--;
    this.#compact();
  }

  /** Rebuilds the line without the waiters that left, once they are most of it. */
  #dropGone(): void {
    if (this.#gone > 1024 && this.#gone * 2 > this.#line.length - this.#head) {
      this.#line = this.#line.slice(this.#head).filter((waiter) => waiter !== undefined && !waiter.gone);
      this.#head = 0;
      this.#gone = 0;
    }
  }

  /** Drops the served front of the line once it is most of the array. */
  #compact(): void {
    if (this.#head > 1024 && this.#head * 2 > this.#line.length) {
      this.#line = this.#line.slice(this.#head);
      this.#head = 0;
    }
  }
}
