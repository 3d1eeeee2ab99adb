/**
 * Runs `run` once things are quiet: each `schedule` (re)starts the wait. With `maxWaitMs`, a steady stream of
 * schedules cannot postpone it for longer than that after the first one still waiting.
 */
export interface Debounced {
  /** (Re)starts the wait: `delayMs` this time, else the default. */
  schedule(delayMs?: number): void;
  /** Forgets a waiting run. */
  cancel(): void;
}

export function debounce(run: () => void, delayMs: number, { maxWaitMs }: { maxWaitMs?: number } = {}): Debounced {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let firstAt: number | undefined;
  const fire = () => {
    timer = undefined;
    firstAt = undefined;
    run();
  };
  return {
    schedule(ms = delayMs) {
      clearTimeout(timer);
      const now = performance.now();
      firstAt ??= now;
      const wait = maxWaitMs === undefined ? ms : Math.max(0, Math.min(ms, firstAt + maxWaitMs - now));
      timer = setTimeout(fire, wait);
    },
    cancel() {
      clearTimeout(timer);
      timer = undefined;
      firstAt = undefined;
    },
  };
}
