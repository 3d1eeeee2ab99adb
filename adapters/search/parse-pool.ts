/**
 * Tree-sitter work on worker threads that go away when idle: symbol parsing (core/search/symbols/file-symbols.ts),
 * `ast` matching (core/search/symbols/ast-matcher.ts) and health's per-file figures (core/health/file-figures.ts).
 *
 * Why workers: tree-sitter's WASM linear memory grows to fit the largest file parsed and never shrinks, so a
 * background pass over a big C tree left it grown in the daemon's main thread for good. In a worker it belongs to
 * that thread's isolate; terminating the workers after `idleMs` without a request gives it back to the OS, and
 * a later request starts fresh workers (~60 ms each, see ./start-ts-worker.ts). Parsing is also the slow part
 * (≈ 3 MB/s of C): off the main thread, sockets and terminals are served meanwhile.
 *
 * - `workers` threads (default 1), one request in flight on each: requests are queued and handed to the first
 *   idle worker, so with one worker they are answered in order. A worker that dies takes only the request it was
 *   on with it.
 * - `nice`: the workers' own scheduling priority (Linux keeps a nice value per thread; elsewhere a no-op). A bulk
 *   pass (health over a whole tree) can then use every core while the main thread still comes first.
 * - Never a hung promise: a parse that throws, or a worker that exits or errors, answers the request's fallback
 *   (`[]`; for figures, the file's text-only figures worked out in this thread), and the worker is replaced (a
 *   throw may come from inside the WASM runtime, whose state is then not to be trusted). `close()` answers every
 *   pending request its fallback, and so does every request after it.
 * - Idle workers and the idle timer never keep the process alive (unref'd); a busy worker does, like the scan
 *   pool's.
 */
import type { Worker } from 'node:worker_threads';
import { fileFigures, type FiguresOf, type FileFigures } from '../../core/health/file-figures.ts';
import type { AstMatcher } from '../../core/search/symbols/ast-matcher.ts';
import type { SymbolsOf } from '../../core/search/symbols/file-symbols.ts';
import type { ParseReplyMessage, ParseRequestMessage, ParseWorkerData } from './parse-worker.ts';
import { startTsWorker } from './start-ts-worker.ts';

export interface ParsePoolOptions {
  /** Worker threads at most (default 1). */
  workers?: number;
  /** The workers' nice value, 0 (default) to 19 (Linux; a no-op where threads have no priority of their own). */
  nice?: number;
  /** One parse's bound, ms (default TreeSitterParsers' 2000): a parse past it counts as failed. */
  maxParseMs?: number;
  /** Terminate the workers after this long without a request, ms (default 15 000). */
  idleMs?: number;
  /** Called with each worker the pool starts (tests observe its threadId and exit, or terminate it). */
  onWorkerStart?: (worker: Worker) => void;
}

export interface ParsePool {
  symbolsOf: SymbolsOf;
  astMatcher: AstMatcher;
  /** Health's figures of one file, as core/health/file-figures.ts `fileFigures` with the tree-sitter parsers. */
  figuresOf: FiguresOf;
  /** Starts a worker now if none is alive (idle, it ends after `idleMs` like any other), so a request soon after does not wait for it. */
  warm(): void;
  /** Worker threads alive now: 0 to `workers`. */
  readonly workerCount: number;
  close(): Promise<void>;
}

const DEFAULT_IDLE_MS = 15_000;
const WORKER_ENTRY = new URL('./parse-worker.ts', import.meta.url);

export function createParsePool(options: ParsePoolOptions = {}): ParsePool {
  const pool = new WorkerParsePool(
    Math.max(1, Math.floor(options.workers ?? 1)),
    { nice: options.nice ?? 0, ...(options.maxParseMs === undefined ? {} : { maxParseMs: options.maxParseMs }) },
    options.idleMs ?? DEFAULT_IDLE_MS,
    options.onWorkerStart,
  );
  const none = () => Promise.resolve([]);
  return {
    symbolsOf: (path, text) => pool.request({ kind: 'symbols', path, text }, none) as ReturnType<SymbolsOf>,
    astMatcher: (pattern, path, text) => pool.request({ kind: 'ast', pattern, path, text }, none) as ReturnType<AstMatcher>,
    figuresOf: (path, bytes) =>
      pool.request({ kind: 'figures', path, bytes }, () => fileFigures(path, bytes, undefined)) as Promise<FileFigures>,
    warm: () => pool.warm(),
    get workerCount() {
      return pool.workerCount;
    },
    close: () => pool.close(),
  };
}

interface Pending {
  message: ParseRequestMessage;
  answer(result: unknown): void;
  reject(error: unknown): void;
  /** What the request answers when it fails: the worker threw or died, or the pool closed. */
  fallback(): Promise<unknown>;
}

interface Slot {
  worker: Worker;
  /** The request in flight on it. */
  current?: Pending;
}

/** A request without its id (the pool numbers them). */
type Request = ParseRequestMessage extends infer M ? (M extends { id: number } ? Omit<M, 'id'> : never) : never;

class WorkerParsePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly maxWorkers: number,
    private readonly workerData: ParseWorkerData,
    private readonly idleMs: number,
    private readonly onWorkerStart: ((worker: Worker) => void) | undefined,
  ) {}

  get workerCount(): number {
    return this.slots.length;
  }

  request(request: Request, fallback: () => Promise<unknown>): Promise<unknown> {
    if (this.closed) return fallback();
    return new Promise((answer, reject) => {
      this.queue.push({ message: { ...request, id: this.nextId++ } as ParseRequestMessage, answer, reject, fallback });
      this.dispatch();
    });
  }

  warm(): void {
    if (this.closed || this.slots.length > 0) return;
    this.startWorker().worker.unref(); // an idle pool never keeps the process alive
    this.armIdleTimer();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const slots = this.slots.splice(0);
    for (const slot of slots) if (slot.current) fail(slot.current);
    for (const pending of this.queue.splice(0)) fail(pending);
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  /** Hands queued requests to idle workers, starting workers up to the limit. */
  private dispatch(): void {
    if (this.closed) return;
    while (this.queue.length > 0) {
      let slot = this.slots.find((candidate) => candidate.current === undefined);
      if (slot === undefined && this.slots.length < this.maxWorkers) slot = this.startWorker();
      if (slot === undefined) return;
      clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
      const next = this.queue.shift()!;
      slot.current = next;
      slot.worker.ref();
      slot.worker.postMessage(next.message);
    }
    if (this.slots.every((slot) => slot.current === undefined)) this.armIdleTimer();
  }

  private startWorker(): Slot {
    const worker = startTsWorker(WORKER_ENTRY, { workerData: this.workerData });
    const slot: Slot = { worker };
    this.slots.push(slot);
    worker.on('message', (reply: ParseReplyMessage) => {
      const pending = slot.current;
      if (!this.slots.includes(slot) || pending === undefined || pending.message.id !== reply.id) return;
      slot.current = undefined;
      worker.unref();
      if (reply.ok) pending.answer(reply.result);
      else {
        fail(pending);
        this.retire(slot);
      }
      this.dispatch();
    });
    // A worker that dies (out of memory, a crash, terminated from outside) fails the request it was on.
    const lost = () => {
      if (!this.slots.includes(slot)) return;
      this.slots.splice(this.slots.indexOf(slot), 1);
      if (slot.current) fail(slot.current);
      slot.current = undefined;
      this.dispatch();
    };
    worker.on('error', lost);
    worker.on('exit', lost);
    this.onWorkerStart?.(worker);
    return slot;
  }

  /** Drops `slot` from the pool and terminates its worker; a later request starts a fresh one. */
  private retire(slot: Slot): void {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    void slot.worker.terminate();
  }

  private armIdleTimer(): void {
    if (this.slots.length === 0 || this.idleTimer !== undefined) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.queue.length > 0 || this.slots.some((slot) => slot.current !== undefined)) return;
      for (const slot of [...this.slots]) this.retire(slot);
    }, this.idleMs);
    this.idleTimer.unref();
  }
}

/** Answers `pending` with its fallback. */
function fail(pending: Pending): void {
  pending.fallback().then(pending.answer, pending.reject);
}
