/**
 * Symbol parsing (core/search/symbols/file-symbols.ts) and `ast` matching (core/search/symbols/ast-matcher.ts) on
 * one worker thread that goes away when idle.
 *
 * Why a worker: tree-sitter's WASM linear memory grows to fit the largest file parsed and never shrinks, so a
 * background pass over a big C tree left it grown in the daemon's main thread for good. In a worker it belongs to
 * that thread's isolate; terminating the worker after `idleMs` without a request gives it back to the OS, and
 * a later request starts a fresh worker (~250 ms, see ./start-ts-worker.ts).
 *
 * - One worker, one request in flight: requests are queued and answered in order, and a worker that dies takes
 *   only the request it was on with it.
 * - Never a hung promise: a parse that throws, or a worker that exits or errors, answers `[]` for its request,
 *   and the worker is replaced (a throw may come from inside the WASM runtime, whose state is then not to be
 *   trusted). `close()` answers every pending request `[]`, and so does every request after it.
 * - An idle worker and its idle timer never keep the process alive (both unref'd); a busy one does, like the
 *   scan pool's.
 */
import type { Worker } from 'node:worker_threads';
import type { AstMatcher } from '../../core/search/symbols/ast-matcher.ts';
import type { SymbolsOf } from '../../core/search/symbols/file-symbols.ts';
import type { ParseReplyMessage, ParseRequestMessage } from './parse-worker.ts';
import { startTsWorker } from './start-ts-worker.ts';

export interface ParsePoolOptions {
  /** Terminate the worker after this long without a request, ms (default 15 000). */
  idleMs?: number;
  /** Called with each worker the pool starts (tests observe its threadId and exit, or terminate it). */
  onWorkerStart?: (worker: Worker) => void;
}

export interface ParsePool {
  symbolsOf: SymbolsOf;
  astMatcher: AstMatcher;
  /** Worker threads alive now: 0 or 1. */
  readonly workerCount: number;
  close(): Promise<void>;
}

const DEFAULT_IDLE_MS = 15_000;
const WORKER_ENTRY = new URL('./parse-worker.ts', import.meta.url);

export function createParsePool(options: ParsePoolOptions = {}): ParsePool {
  const pool = new WorkerParsePool(options.idleMs ?? DEFAULT_IDLE_MS, options.onWorkerStart);
  return {
    symbolsOf: (path, text) => pool.request({ kind: 'symbols', path, text }) as ReturnType<SymbolsOf>,
    astMatcher: (pattern, path, text) => pool.request({ kind: 'ast', pattern, path, text }) as ReturnType<AstMatcher>,
    get workerCount() {
      return pool.workerCount;
    },
    close: () => pool.close(),
  };
}

interface Pending {
  message: ParseRequestMessage;
  /** Both kinds of request answer a list; a failure answers []. */
  answer(result: unknown[]): void;
}

/** A request without its id (the pool numbers them). */
type Request = ParseRequestMessage extends infer M ? (M extends { id: number } ? Omit<M, 'id'> : never) : never;

class WorkerParsePool {
  private worker: Worker | undefined;
  private readonly queue: Pending[] = [];
  private current: Pending | undefined;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly idleMs: number,
    private readonly onWorkerStart: ((worker: Worker) => void) | undefined,
  ) {}

  get workerCount(): number {
    return this.worker === undefined ? 0 : 1;
  }

  request(request: Request): Promise<unknown[]> {
    if (this.closed) return Promise.resolve([]);
    return new Promise((answer) => {
      this.queue.push({ message: { ...request, id: this.nextId++ } as ParseRequestMessage, answer });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const worker = this.worker;
    this.worker = undefined;
    this.current?.answer([]);
    this.current = undefined;
    for (const pending of this.queue.splice(0)) pending.answer([]);
    await worker?.terminate();
  }

  /** Sends the next queued request when none is in flight, starting a worker if there is none. */
  private dispatch(): void {
    if (this.closed || this.current !== undefined) return;
    const next = this.queue.shift();
    if (next === undefined) return this.armIdleTimer();
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const worker = (this.worker ??= this.startWorker());
    this.current = next;
    worker.ref();
    worker.postMessage(next.message);
  }

  private startWorker(): Worker {
    const worker = startTsWorker(WORKER_ENTRY);
    worker.on('message', (reply: ParseReplyMessage) => {
      if (worker !== this.worker) return;
      const pending = this.current;
      if (pending === undefined || pending.message.id !== reply.id) return;
      this.current = undefined;
      worker.unref();
      if (reply.ok) pending.answer(reply.result);
      else {
        pending.answer([]);
        this.retire(worker);
      }
      this.dispatch();
    });
    // A worker that dies (out of memory, a crash, terminated from outside) answers [] for the request it was on.
    const lost = () => {
      if (worker !== this.worker) return;
      this.worker = undefined;
      this.current?.answer([]);
      this.current = undefined;
      this.dispatch();
    };
    worker.on('error', lost);
    worker.on('exit', lost);
    this.onWorkerStart?.(worker);
    return worker;
  }

  /** Drops `worker` from the pool and terminates it; the next request starts a fresh one. */
  private retire(worker: Worker): void {
    if (this.worker === worker) this.worker = undefined;
    void worker.terminate();
  }

  private armIdleTimer(): void {
    if (this.worker === undefined || this.idleTimer !== undefined) return;
    const worker = this.worker;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.worker === worker && this.current === undefined && this.queue.length === 0) this.retire(worker);
    }, this.idleMs);
    this.idleTimer.unref();
  }
}
