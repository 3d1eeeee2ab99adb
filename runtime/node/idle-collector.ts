/**
 * One full garbage collection once the daemon has gone quiet after a burst of requests. A burst of `@` queries
 * over a big tree leaves tens of MiB of dead ranking objects in V8's old generation, and V8's memory reducer does
 * not reliably run in an idle process (measured on the kernel tree: the heap held 373 MiB for 40 s of idle with
 * 112 MiB live). A collection once a quiet spell starts costs tens of milliseconds when nobody is waiting, and the
 * pages it frees go back to the OS.
 *
 * It needs `globalThis.gc`, which node exposes with `--expose-gc` (`npm start` passes it); without it, nothing.
 */
export interface IdleCollector {
  /** Work happened: a collection follows once `quietMs` pass without more. */
  touch(): void;
  stop(): void;
}

/** `gc`: what collects (default: node's exposed one); null: none. */
export function idleCollector(quietMs: number, gc: (() => void) | null = exposedGc()): IdleCollector {
  let lastTouch = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (delay: number) => {
    timer = setTimeout(fire, delay);
    timer.unref(); // never keeps the process alive
  };
  function fire() {
    timer = undefined;
    const quietFor = Date.now() - lastTouch;
    if (quietFor < quietMs) return arm(quietMs - quietFor); // touched meanwhile: wait for the quiet spell
    gc!();
  }
  return {
    touch() {
      if (gc === null) return;
      lastTouch = Date.now();
      if (timer === undefined) arm(quietMs);
    },
    stop() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}

function exposedGc(): (() => void) | null {
  const gc = (globalThis as { gc?: unknown }).gc;
  return typeof gc === 'function' ? () => (gc as () => void)() : null;
}
