/**
 * The Node TextScanner (core/search/text/scanner.ts) on worker threads: the scan that answers `find` while the
 * content index is still building. Reading a tree is syscall-bound and matching is CPU-bound, so both cores
 * read and match at once (./scan-worker.ts), and the daemon's event loop stays free.
 *
 * - Workers: `os.availableParallelism()`, at least 1, at most 4; started on the first scan and reused (a start
 *   costs ~60 ms and its JIT warm-up), one reused read buffer each. A worker idle for `idleMs` is terminated (each is an isolate of
 *   ~15–30 MiB resident, and searches come in bursts); the next scan starts workers again.
 * - Files go out in batches (a few hundred files or a few MiB each), handed to whichever worker is free, so a
 *   batch of big files on one worker does not leave the other idle; several scans share the queue in turn.
 * - A scan past its `deadlineMs`, or whose `signal` aborts, is stopped by terminating the workers busy with its
 *   batches (a synchronous read loop cannot be interrupted any other way); fresh workers replace them on demand.
 * - Results come back in the order of `files`, only files with hits, like createFsScanner's.
 * - `ruleOut` runs the same way: each file read whole that lacks the query's required literals comes back (a
 *   prefilter for `search_in_files` while the content index builds: both cores read, the main thread then reads
 *   only the rest).
 * - Streamed files (batches from a walk still running) are gathered per scan and handed out as soon as a worker
 *   is free, so the first folder's files are being read while the walk goes on; while every worker is busy they
 *   gather into batches of the usual size.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { MAX_SEARCHED_FILE_BYTES } from '../../core/search/answer.ts';
import type { FileTextMatch, FindQuery } from '../../core/search/text/find-query.ts';
import { scanBatches, scanTimedOut, type ScanRequest, type ScanTarget, type TextScanner } from '../../core/search/text/scanner.ts';
import type { ScanBatchMessage, ScanKind, ScanReplyMessage } from './scan-messages.ts';
import { startTsWorker } from './start-ts-worker.ts';

export interface ScanPoolOptions {
  /** Worker threads (default: available parallelism, 1..4). */
  workers?: number;
  /** Terminate a worker after this long without a batch, ms (default 30 000). */
  idleMs?: number;
  /** The folder every file read must be inside, even when the tree changes meanwhile (the workspace's real root). */
  within?: string;
}

export interface ScanPool extends TextScanner {
  /** Starts the workers now (each start costs ~60 ms), so a scan soon after does not wait for them. */
  warm(): void;
  ruleOut(request: ScanRequest): Promise<Set<string>>;
  /** Terminates the workers; scans still running fail. */
  close(): Promise<void>;
  /** Worker threads alive now. */
  readonly workerCount: number;
}

const DEFAULT_IDLE_MS = 30_000;
const BATCH_FILES = 256;
const BATCH_BYTES = 4 * 1024 * 1024;
/**
 * Batches a worker holds at once: the next one waits in its port while it reads the current one, so it never
 * sits idle for the round trip through the main thread, which is busy walking the tree during a first query.
 */
const BATCHES_PER_WORKER = 2;
const WORKER_ENTRY = new URL('./scan-worker.ts', import.meta.url);

export function createScanPool(options: ScanPoolOptions = {}): ScanPool {
  return new WorkerScanPool(options.workers ?? Math.min(4, Math.max(1, availableParallelism())), options.idleMs ?? DEFAULT_IDLE_MS, options.within);
}

interface Batch {
  scan: ActiveScan;
  message: ScanBatchMessage;
}

interface PoolWorker {
  worker: Worker;
  /** Handed to the worker and not yet answered, in the order it answers them. */
  batches: Batch[];
  /** Set while the worker is idle: terminates it after the pool's idleMs. */
  idleTimer: ReturnType<typeof setTimeout> | undefined;
}

interface ActiveScan {
  id: number;
  query: FindQuery;
  kind: ScanKind;
  /** Batches queued or on a worker. */
  outstanding: number;
  results: [number, FileTextMatch][];
  /** `rule-out`: the indexes of the files ruled out. */
  ruledOut: number[];
  /** Every file given so far (searchable ones only): a result's index is into this. */
  files: { path: string; absolutePath: string; size: number }[];
  /** `files` before this index are in batches; the rest wait for more (a stream gathers them). */
  batched: number;
  /** The stream of files has not ended. */
  feeding: boolean;
  settle(error?: unknown): void;
}

class WorkerScanPool implements ScanPool {
  private readonly workers: PoolWorker[] = [];
  private queue: Batch[] = [];
  private readonly scans = new Set<ActiveScan>();
  private nextScanId = 1;
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly idleMs: number,
    private readonly within: string | undefined,
  ) {}

  get workerCount(): number {
    return this.workers.length;
  }

  async scan(request: ScanRequest): Promise<Map<string, FileTextMatch>> {
    return inListOrder(await this.run('find', request));
  }

  async ruleOut(request: ScanRequest): Promise<Set<string>> {
    const scan = await this.run('rule-out', request);
    return new Set(scan.ruledOut.map((index) => scan.files[index]!.absolutePath));
  }

  /** Runs a scan of either kind to its end: the settled scan holds what the workers sent back. */
  private run(kind: ScanKind, request: ScanRequest): Promise<ActiveScan> {
    if (this.closed) return Promise.reject(new Error('the scan pool is closed'));
    return new Promise((resolve, reject) => {
      const startedAt = Date.now();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = () => scan.settle(request.signal!.reason);
      const scan: ActiveScan = {
        id: this.nextScanId++,
        query: request.query,
        kind,
        outstanding: 0,
        results: [],
        ruledOut: [],
        files: [],
        batched: 0,
        feeding: true,
        settle: (error?: unknown) => {
          if (!this.scans.delete(scan)) return;
          clearTimeout(timer);
          request.signal?.removeEventListener('abort', onAbort);
          if (error === undefined) {
            resolve(scan);
            return;
          }
          this.stop(scan);
          reject(error);
        },
      };
      this.scans.add(scan);
      if (request.signal?.aborted) return scan.settle(request.signal.reason);
      request.signal?.addEventListener('abort', onAbort, { once: true });
      if (request.deadlineMs !== undefined) {
        const budget = request.deadlineMs - startedAt;
        timer = setTimeout(() => scan.settle(scanTimedOut(budget)), Math.max(0, budget));
      }
      void this.feed(scan, request.files);
    });
  }

  warm(): void {
    while (!this.closed && this.workers.length < this.size) {
      const entry = this.startWorker();
      entry.worker.unref(); // an idle pool never keeps the process alive
      this.armIdleTimer(entry);
    }
  }

  /** Takes the scan's files (a list at once, a stream as it comes) into batches for the workers. */
  private async feed(scan: ActiveScan, files: ScanRequest['files']): Promise<void> {
    try {
      for await (const given of scanBatches(files)) {
        if (!this.scans.has(scan)) return; // settled meanwhile (deadline, abort, a lost worker): stops the stream
        for (const file of given) if (file.size <= MAX_SEARCHED_FILE_BYTES) scan.files.push(file);
        // While every worker is busy a stream's files wait, to go out in full batches.
        this.cut(scan, this.canStartNow());
        this.dispatch();
      }
    } catch (error) {
      scan.settle(error);
      return;
    }
    scan.feeding = false;
    this.cut(scan, true);
    if (scan.outstanding === 0) scan.settle();
    else this.dispatch();
  }

  /** Queues the scan's files not yet in a batch: in full batches, and the rest as a smaller one when `rest`. */
  private cut(scan: ActiveScan, rest: boolean): void {
    while (scan.batched < scan.files.length) {
      let end = scan.batched;
      let bytes = 0;
      while (end < scan.files.length && end - scan.batched < BATCH_FILES && bytes < BATCH_BYTES) bytes += scan.files[end++]!.size;
      if (!rest && end - scan.batched < BATCH_FILES && bytes < BATCH_BYTES) return;
      const batch: [number, string][] = [];
      for (let index = scan.batched; index < end; index++) batch.push([index, scan.files[index]!.absolutePath]);
      this.queue.push({ scan, message: { scan: scan.id, query: scan.query, kind: scan.kind, files: batch, ...(this.within === undefined ? {} : { within: this.within }) } });
      scan.outstanding++;
      scan.batched = end;
    }
  }

  /** Whether a batch queued now would start at once (a worker idle, or one more may start). */
  private canStartNow(): boolean {
    return this.queue.length === 0 && (this.workers.length < this.size || this.workers.some((entry) => entry.batches.length === 0));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const scan of [...this.scans]) scan.settle(new Error('the scan pool is closed'));
    for (const entry of this.workers) clearTimeout(entry.idleTimer);
    await Promise.all(this.workers.splice(0).map(({ worker }) => worker.terminate()));
  }

  /** Hands queued batches to idle workers, starting workers up to the pool's size. */
  private dispatch(): void {
    while (this.queue.length > 0) {
      // An idle worker first, then a new one, then one with room for a batch after its current one.
      let idle = this.workers.find((entry) => entry.batches.length === 0);
      if (idle === undefined && this.workers.length < this.size) idle = this.startWorker();
      idle ??= this.workers.find((entry) => entry.batches.length < BATCHES_PER_WORKER);
      if (idle === undefined) return;
      const batch = this.queue.shift()!;
      clearTimeout(idle.idleTimer);
      idle.idleTimer = undefined;
      idle.batches.push(batch);
      idle.worker.ref();
      idle.worker.postMessage(batch.message);
    }
  }

  private startWorker(): PoolWorker {
    const entry: PoolWorker = { worker: startTsWorker(WORKER_ENTRY), batches: [], idleTimer: undefined };
    entry.worker.on('message', (reply: ScanReplyMessage) => this.finished(entry, reply));
    // A worker that dies (an error thrown outside the message handler, out of memory) fails its scan.
    const lost = (error: unknown) => {
      if (!this.remove(entry)) return;
      for (const batch of entry.batches) batch.scan.settle(error instanceof Error ? error : new Error(`a scan worker exited (${String(error)})`));
      this.dispatch();
    };
    entry.worker.on('error', lost);
    entry.worker.on('exit', (code) => lost(code));
    this.workers.push(entry);
    return entry;
  }

  private finished(entry: PoolWorker, reply: ScanReplyMessage): void {
    const batch = entry.batches.shift();
    if (entry.batches.length === 0) entry.worker.unref(); // an idle pool never keeps the process alive
    if (batch !== undefined && batch.scan.id === reply.scan && this.scans.has(batch.scan)) {
      const { scan } = batch;
      if (!reply.ok) scan.settle(new Error(`scan failed: ${reply.message}`));
      else {
        scan.results.push(...reply.results);
        if (reply.ruledOut !== undefined) scan.ruledOut.push(...reply.ruledOut);
        if (--scan.outstanding === 0 && !scan.feeding) scan.settle();
      }
    }
    // A worker is free: what the streams have gathered goes out now rather than wait to fill a batch.
    if (this.queue.length === 0) for (const active of this.scans) if (active.feeding) this.cut(active, true);
    this.dispatch();
    if (entry.batches.length === 0 && this.workers.includes(entry)) this.armIdleTimer(entry);
  }

  private armIdleTimer(entry: PoolWorker): void {
    clearTimeout(entry.idleTimer);
    entry.idleTimer = setTimeout(() => {
      entry.idleTimer = undefined;
      if (entry.batches.length > 0 || !this.remove(entry)) return;
      void entry.worker.terminate();
    }, this.idleMs);
    entry.idleTimer.unref(); // an idle pool never keeps the process alive
  }

  /** Drops a failed scan's queued batches and terminates the workers still holding one of them. */
  private stop(scan: ActiveScan): void {
    this.queue = this.queue.filter((batch) => batch.scan !== scan);
    for (const entry of this.workers.filter((candidate) => candidate.batches.some((batch) => batch.scan === scan))) {
      this.remove(entry);
      void entry.worker.terminate();
      // Another scan's batch waiting behind it goes to another worker.
      this.queue.unshift(...entry.batches.filter((batch) => batch.scan !== scan));
    }
    this.dispatch();
  }

  private remove(entry: PoolWorker): boolean {
    const at = this.workers.indexOf(entry);
    if (at < 0) return false;
    this.workers.splice(at, 1);
    clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
    return true;
  }
}

function inListOrder(scan: ActiveScan): Map<string, FileTextMatch> {
  scan.results.sort((a, b) => a[0] - b[0]);
  return new Map(scan.results.map(([index, match]) => [scan.files[index]!.path, match]));
}
