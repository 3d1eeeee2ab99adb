/**
 * The Node IndexBuilder: shards built in worker threads (one per core, at most 4), so the daemon's event loop
 * stays free while the first pass reads a large tree. Runs of about SHARD_TEXT_BYTES are handed out one at a time,
 * so both cores stay busy until the end; progress comes back every few hundred files. Workers start for a build
 * and end with it: their buffers and the builders' dense counters (64 MiB each) are not kept between builds.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { shardRuns, type BuildJob, type BuildResult, type BuiltShard, type IndexBuilder } from '../../core/search/content-index/index-builder.ts';
import type { DiskIndexStore } from './index-store-disk.ts';
import type { BuildRunMessage, BuildWorkerReply } from './index-build-worker.ts';
import { startTsWorker } from './start-ts-worker.ts';

export interface IndexBuildPoolOptions {
  /** Default: the available cores, at least 1, at most 4. */
  workers?: number;
  /** When given, workers write their shards straight into its folder. */
  store?: DiskIndexStore;
  /** Text bytes per shard (default SHARD_TEXT_BYTES; tests use small ones to get many shards). */
  shardTextBytes?: number;
  /** The folder every file read must be inside, even when the tree changes meanwhile (the workspace's real root). */
  within?: string;
}

const WORKER_URL = new URL('./index-build-worker.ts', import.meta.url);

export function createIndexBuildPool(options: IndexBuildPoolOptions = {}): IndexBuilder {
  const workerCount = options.workers ?? Math.min(4, Math.max(1, availableParallelism()));
  const running = new Set<Worker>();

  return {
    async build(job: BuildJob, onProgress: (done: number) => void): Promise<BuildResult> {
      const runs = shardRuns(job.files, options.shardTextBytes);
      const flags = new Uint8Array(job.files.length);
      const shards: (BuiltShard | undefined)[] = new Array(runs.length);
      if (runs.length === 0) return { shards: [], flags };
      await options.store?.prepare();
      const doneIn = new Uint32Array(runs.length);
      let doneTotal = 0;
      const progress = (run: number, done: number) => {
        doneTotal += done - doneIn[run]!;
        doneIn[run] = done;
        onProgress(doneTotal);
      };
      let nextRun = 0;
      const workers: Worker[] = [];

      const result = new Promise<void>((resolve, reject) => {
        let finished = 0;
        const fail = (error: unknown) => reject(error instanceof Error ? error : new Error(String(error)));
        const handOut = (worker: Worker) => {
          if (nextRun >= runs.length) return;
          const run = nextRun++;
          const [start, end] = runs[run]!;
          const base = job.firstId + start;
          const name = job.shardName(base, end - start);
          const message: BuildRunMessage = {
            type: 'run',
            ...(options.within === undefined ? {} : { within: options.within }),
            run,
            base,
            files: job.files.slice(start, end).map((entry) => [entry.absolutePath, entry.size]),
          };
          if (options.store !== undefined) message.shardPath = options.store.shardPath(name);
          shards[run] = { name };
          worker.postMessage(message);
        };
        const count = Math.min(workerCount, runs.length);
        for (let w = 0; w < count; w++) {
          const worker = startTsWorker(WORKER_URL);
          workers.push(worker);
          running.add(worker);
          worker.on('error', fail);
          worker.on('exit', (code) => {
            running.delete(worker);
            if (finished < runs.length) fail(new Error(`index build worker exited (${code})`));
          });
          worker.on('message', (reply: BuildWorkerReply) => {
            if (reply.type === 'progress') return progress(reply.run, reply.done);
            const [start, end] = runs[reply.run]!;
            flags.set(reply.flags, start);
            if (reply.bytes !== undefined) shards[reply.run] = { name: shards[reply.run]!.name, bytes: reply.bytes };
            progress(reply.run, end - start);
            finished++;
            if (finished === runs.length) resolve();
            else handOut(worker);
          });
          handOut(worker);
        }
        job.signal?.addEventListener('abort', () => fail(job.signal!.reason), { once: true });
      });

      try {
        await result;
      } finally {
        await Promise.all(workers.map((worker) => worker.terminate()));
      }
      return { shards: shards as BuiltShard[], flags };
    },

    async close() {
      await Promise.all([...running].map((worker) => worker.terminate()));
    },
  };
}
