/**
 * Trades the fixture's folder `swapped` for a link to the outside folder and back, as fast as the disk allows, on a
 * thread of its own: the way another process (an agent's shell) would, truly at the same time as the daemon's
 * file calls on libuv's pool, not between them. The in-process swapper (LinkSwapper's swapFolder) waits behind
 * the requests' own calls on the pool and manages a few trades a batch on the disk; this one manages thousands.
 *
 * The thread is told through shared memory: run, pause (the folder put back, acknowledged with the pause number,
 * so nothing is traded once `pause` has returned), or exit.
 */
import { Worker } from 'node:worker_threads';

const RUN = 1;
const PAUSE = 0;
const EXIT = 2;
/** Slots of the shared Int32Array. */
const COMMAND = 0;
const PAUSE_ASKED = 1;
const PAUSE_DONE = 2;
const TRADES = 3;

// Plain JavaScript (eval'd): synchronous calls in a tight loop; a failure (a request moved the folder, which is
// allowed: it is inside) is put right by `restore`, and the harness's reset makes the fixture again anyway.
const THREAD = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { shared, folder, held, outside } = workerData;
const ctl = new Int32Array(shared);
let out = false;
const restore = () => {
  try { if (fs.lstatSync(folder).isSymbolicLink()) fs.unlinkSync(folder); } catch {}
  try { fs.renameSync(held, folder); } catch {}
  out = false;
};
for (;;) {
  const command = Atomics.load(ctl, ${COMMAND});
  if (command === ${EXIT}) { restore(); break; }
  if (command === ${RUN}) {
    try {
      if (out) { fs.unlinkSync(folder); fs.renameSync(held, folder); out = false; }
      else { fs.renameSync(folder, held); out = true; fs.symlinkSync(outside, folder); }
      Atomics.add(ctl, ${TRADES}, 1);
    } catch { restore(); }
    continue;
  }
  restore();
  Atomics.store(ctl, ${PAUSE_DONE}, Atomics.load(ctl, ${PAUSE_ASKED}));
  Atomics.notify(ctl, ${PAUSE_DONE});
  Atomics.wait(ctl, ${COMMAND}, ${PAUSE}, 20);
}
`;

/** Atomics.waitAsync (Node 16+; not in TypeScript's ES2022 lib): a promise, or the answer at once. */
const waitAsync = (Atomics as unknown as { waitAsync(array: Int32Array, index: number, value: number, timeout: number): { value: Promise<string> | string } }).waitAsync;

export class FolderTrader {
  readonly #control = new Int32Array(new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT));
  readonly #worker: Worker;
  readonly #exited: Promise<void>;

  constructor(folder: string, held: string, outside: string) {
    this.#worker = new Worker(THREAD, { eval: true, workerData: { shared: this.#control.buffer, folder, held, outside } });
    this.#exited = new Promise((resolve) => this.#worker.once('exit', () => resolve()));
  }

  /** Trades made so far. */
  get trades(): number {
    return Atomics.load(this.#control, TRADES);
  }

  run(): void {
    Atomics.store(this.#control, COMMAND, RUN);
    Atomics.notify(this.#control, COMMAND);
  }

  /** Stops trading and waits until the folder is back in place. */
  async pause(): Promise<void> {
    Atomics.store(this.#control, COMMAND, PAUSE);
    const asked = Atomics.add(this.#control, PAUSE_ASKED, 1) + 1;
    Atomics.notify(this.#control, COMMAND);
    for (;;) {
      const done = Atomics.load(this.#control, PAUSE_DONE);
      if (done >= asked) return;
      await waitAsync(this.#control, PAUSE_DONE, done, 1000).value;
    }
  }

  async close(): Promise<void> {
    Atomics.store(this.#control, COMMAND, EXIT);
    Atomics.notify(this.#control, COMMAND);
    await this.#exited;
  }
}
