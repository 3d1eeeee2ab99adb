/**
 * Lets a sampler read the daemon between operations: `hold()` stops new operations and waits for those in flight,
 * so descendant processes and file descriptors are counted at rest (a git or a terminal that is merely running is
 * not a leak), then `release()` lets traffic go on.
 */
export class Gate {
  #inFlight = 0;
  #held: Promise<void> | undefined;
  #release: (() => void) | undefined;
  #idle: (() => void) | undefined;

  /** Runs `operation` once the gate is open. */
  async run<T>(operation: () => Promise<T>): Promise<T> {
    while (this.#held) await this.#held;
    this.#inFlight++;
    try {
      return await operation();
    } finally {
      this.#inFlight--;
      if (this.#inFlight === 0) this.#idle?.();
    }
  }

  /** Closes the gate; resolves once nothing runs. */
  async hold(): Promise<void> {
    this.#held ??= new Promise<void>((resolve) => (this.#release = resolve));
    if (this.#inFlight === 0) return;
    await new Promise<void>((resolve) => (this.#idle = resolve));
    this.#idle = undefined;
  }

  release(): void {
    const release = this.#release;
    this.#held = undefined;
    this.#release = undefined;
    release?.();
  }
}
