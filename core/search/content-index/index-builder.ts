/**
 * Building shards for many files at once (the first pass, a warm start with many changes). The Node builder
 * (adapters/search/index-build-pool.ts) runs it in worker threads; without one the index builds in-process with
 * `createInProcessBuilder`, in slices that yield to the event loop.
 */
import { MAX_SEARCHED_FILE_BYTES } from '../answer.ts';
import { FileFlags, type IndexEntry } from './index-entry.ts';
import { ShardBuilder } from './shard-builder.ts';
import { TrigramCollector } from './trigrams.ts';

export interface BuildJob {
  /** In id order: file i gets id `firstId + i`. */
  readonly files: readonly IndexEntry[];
  readonly firstId: number;
  /** A fresh, unique shard name for ids `base .. base + span`. */
  shardName(base: number, span: number): string;
  readonly signal?: AbortSignal;
}

export interface BuiltShard {
  readonly name: string;
  /** The shard's bytes, for the index to store; absent when the builder stored it itself. */
  readonly bytes?: Uint8Array;
}

export interface BuildResult {
  readonly shards: readonly BuiltShard[];
  /** Per file of the job, its FileFlags. */
  readonly flags: Uint8Array;
}

export interface IndexBuilder {
  /** `onProgress(done)`: files finished so far, reported often. */
  build(job: BuildJob, onProgress: (done: number) => void): Promise<BuildResult>;
  close(): Promise<void>;
}

/** Text bytes per shard: small enough to build in bounded memory (≈8 bytes a posting), large enough that the
 *  trigram tables repeated across shards stay a small part of the index. */
export const SHARD_TEXT_BYTES = 48 * 1024 * 1024;

/** Splits a job's files into runs of about `targetBytes` of text (index ranges into `files`). */
export function shardRuns(files: readonly { size: number }[], targetBytes = SHARD_TEXT_BYTES): [number, number][] {
  const runs: [number, number][] = [];
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < files.length; i++) {
    const size = files[i]!.size;
    if (size <= MAX_SEARCHED_FILE_BYTES) bytes += size;
    if (bytes >= targetBytes) {
      runs.push([start, i + 1]);
      start = i + 1;
      bytes = 0;
    }
  }
  if (start < files.length) runs.push([start, files.length]);
  return runs;
}

/**
 * Indexes one file's bytes into `builder` as `localId`; returns its FileFlags. Shared by the in-process builder,
 * the worker and the delta, so all three index a file the same way.
 */
export function indexFileBytes(
  bytes: Uint8Array | undefined,
  length: number,
  collector: TrigramCollector,
  add: (trigrams: Uint32Array, masks: Uint16Array, count: number) => void,
): number {
  if (length > MAX_SEARCHED_FILE_BYTES) return FileFlags.skipped;
  if (bytes === undefined) return FileFlags.unreadable;
  const collected = collector.collect(bytes, length);
  if (collected.binary) return FileFlags.skipped;
  add(collector.trigrams, collector.masks, collected.count);
  return collected.foldVariant ? FileFlags.foldVariant : FileFlags.text;
}

const SLICE_MS = 8;
const yieldToEventLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Text bytes per shard of a compact build: its postings (~24 bytes each while the shard finishes, about one per 2–3
 * bytes of text) stay a few tens of MiB.
 */
export const COMPACT_SHARD_TEXT_BYTES = 2 * 1024 * 1024;

export interface InProcessBuilderOptions {
  /**
   * No dense 2^24 tables (~290 MiB of scratch buffers in a bulk build), and shards of COMPACT_SHARD_TEXT_BYTES:
   * for a runtime with a small memory limit that counts every allocated byte (Cloudflare: 128 MB an isolate).
   * The same index, in more, smaller shards.
   */
  compact?: boolean;
}

/** Builds on the calling thread, reading through `read`, yielding to the event loop every few milliseconds. */
export function createInProcessBuilder(
  read: (entry: IndexEntry) => Promise<Uint8Array | undefined>,
  options: InProcessBuilderOptions = {},
): IndexBuilder {
  const compact = options.compact ?? false;
  return {
    async build(job, onProgress) {
      const collector = new TrigramCollector(compact);
      const builder = new ShardBuilder(!compact, compact);
      const flags = new Uint8Array(job.files.length);
      const shards: BuiltShard[] = [];
      let sliceStart = Date.now();
      try {
        for (const [start, end] of shardRuns(job.files, compact ? COMPACT_SHARD_TEXT_BYTES : SHARD_TEXT_BYTES)) {
          for (let i = start; i < end; i++) {
            job.signal?.throwIfAborted();
            const entry = job.files[i]!;
            let bytes: Uint8Array | undefined;
            if (entry.size <= MAX_SEARCHED_FILE_BYTES) bytes = await read(entry);
            const length = entry.size > MAX_SEARCHED_FILE_BYTES ? entry.size : (bytes?.length ?? 0);
            flags[i] = indexFileBytes(bytes, length, collector, (trigrams, masks, count) =>
              builder.add(i - start, trigrams, masks, count),
            );
            if (Date.now() - sliceStart >= SLICE_MS) {
              onProgress(i + 1);
              await yieldToEventLoop();
              sliceStart = Date.now();
            }
          }
          const base = job.firstId + start;
          const bytes = builder.finish(base, end - start);
          shards.push({ name: job.shardName(base, end - start), bytes });
          onProgress(end);
        }
      } finally {
        builder.release();
      }
      return { shards, flags };
    },
    async close() {},
  };
}
