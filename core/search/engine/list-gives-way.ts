/**
 * While a query walks the disk itself (the file list's first walk has not ended: ./query-scope.ts), the list's
 * walk waits: both read the same folders, and the list also stats every file, which on 2 cores took the threads
 * and the core the query's walk and scan need (the first query on the kernel tree then took as long as the list).
 * Bounded, so queries back to back cannot hold the list back for ever: one wait ends after MAX_WAIT_MS, and the
 * list then reads for FREE_MS before it waits again.
 */
const MAX_WAIT_MS = 3000;
const FREE_MS = 1000;

export interface ListGivesWay {
  /** A query that walks the disk has begun; call the function returned when it ends. */
  begin(): () => void;
  /** For the list (FileListOptions.giveWay): a promise to wait on while such queries run. */
  turn(): Promise<void> | undefined;
}

export function listGivesWay(now: () => number): ListGivesWay {
  let running = 0;
  let freeUntil = 0;
  let gate: { promise: Promise<void>; open(): void } | undefined;
  const open = () => {
    gate?.open();
    gate = undefined;
  };
  return {
    begin() {
      running++;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        if (--running === 0) open();
      };
    },
    turn() {
      if (running === 0 || now() < freeUntil) return undefined;
      if (gate === undefined) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        let resolve!: () => void;
        const promise = new Promise<void>((done) => (resolve = done));
        gate = {
          promise,
          open() {
            clearTimeout(timer);
            resolve();
          },
        };
        timer = setTimeout(() => {
          freeUntil = now() + FREE_MS;
          open();
        }, MAX_WAIT_MS);
      }
      return gate.promise;
    },
  };
}
