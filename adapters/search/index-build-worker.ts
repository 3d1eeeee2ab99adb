/**
 * A build worker: builds one shard per run it is handed, reading the files with node:fs into one reused buffer
 * (opened with O_NOFOLLOW: the file list never holds links, and a file replaced by a link meanwhile is not
 * followed out of the workspace), and writes the shard into the store's folder itself, so the main thread only
 * writes the manifest.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { MAX_SEARCHED_FILE_BYTES } from '../../core/search/answer.ts';
import { indexFileBytes } from '../../core/search/content-index/index-builder.ts';
import { FileFlags } from '../../core/search/content-index/index-entry.ts';
import { ShardBuilder } from '../../core/search/content-index/shard-builder.ts';
import { TrigramCollector } from '../../core/search/content-index/trigrams.ts';
import { landedInside } from '../fs/node-confinement.ts';
import { writeFileAtomicSync } from './index-store-disk.ts';

export interface BuildRunMessage {
  type: 'run';
  run: number;
  base: number;
  /** [absolutePath, listed size] per file, in id order from `base`. */
  files: [string, number][];
  /** Where to write the shard; absent: send its bytes back. */
  shardPath?: string;
  /** A file whose opened descriptor is not inside this folder is unreadable (adapters/fs/node-confinement.ts). */
  within?: string;
}

export type BuildWorkerReply =
  | { type: 'progress'; run: number; done: number }
  | { type: 'done'; run: number; flags: Uint8Array; bytes?: Uint8Array };

const PROGRESS_EVERY = 256;
const collector = new TrigramCollector();
const builder = new ShardBuilder(true);
// Sized once for the largest file plus a byte (a file that grew past the cap is seen to be too large): one
// allocation for the whole build (see ShardBuilder on why buffers are not regrown).
const buffer = new Uint8Array(MAX_SEARCHED_FILE_BYTES + 1);

/** Reads a whole file into `buffer` (at most the cap + 1 bytes); the byte count, or -1 if unreadable. */
function readFile(path: string, within: string | undefined): number {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return -1;
  }
  try {
    if (within !== undefined && !landedInside(fd, within)) return -1; // a folder on the way swapped for a link out
    const size = fstatSync(fd).size;
    if (size > MAX_SEARCHED_FILE_BYTES) return size;
    let done = 0;
    while (done < buffer.length) {
      const n = readSync(fd, buffer, done, buffer.length - done, null);
      if (n === 0) break;
      done += n;
    }
    return done;
  } catch {
    return -1;
  } finally {
    closeSync(fd);
  }
}

parentPort!.on('message', (message: BuildRunMessage) => {
  const flags = new Uint8Array(message.files.length);
  for (let i = 0; i < message.files.length; i++) {
    const [path, listedSize] = message.files[i]!;
    if (listedSize > MAX_SEARCHED_FILE_BYTES) flags[i] = FileFlags.skipped;
    else {
      const length = readFile(path, message.within);
      flags[i] = indexFileBytes(length < 0 ? undefined : buffer, Math.max(0, length), collector, (trigrams, masks, count) =>
        builder.add(i, trigrams, masks, count),
      );
    }
    if ((i + 1) % PROGRESS_EVERY === 0) parentPort!.postMessage({ type: 'progress', run: message.run, done: i + 1 });
  }
  const bytes = builder.finish(message.base, message.files.length);
  if (message.shardPath !== undefined) {
    writeFileAtomicSync(message.shardPath, bytes);
    parentPort!.postMessage({ type: 'done', run: message.run, flags } satisfies BuildWorkerReply);
  } else {
    parentPort!.postMessage({ type: 'done', run: message.run, flags, bytes } satisfies BuildWorkerReply, [bytes.buffer as ArrayBuffer]);
  }
});
