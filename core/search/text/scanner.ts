/**
 * The scan: `find` over a list of files by reading every one of them (the content index answers instead once it
 * is fresh). The interface, and its in-process implementation over the FileSystem (memory backend, Workers);
 * Node runs the same matcher on worker threads (adapters/search/scan-pool.ts).
 *
 * - Files over MAX_SEARCHED_FILE_BYTES are skipped, by their listed `size` and again by what a read returns
 *   (a file can grow between listing and scan). A file that vanished, cannot be read or has become a link is
 *   skipped silently (./read-searchable.ts): the next listing will say so.
 * - `deadlineMs` (a `Date.now()` time, so one budget can cover a query's reruns) is checked before each file;
 *   past it the scan fails with `bad-request` rather than answer a partial list that looks complete. One file's
 *   match cannot run long: the regex engine is linear and a file is at most 1 MiB.
 */
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { WorkspaceError } from '../../errors/workspace-error.ts';
import { MAX_SEARCHED_FILE_BYTES } from '../answer.ts';
import { compileFind, type FileTextMatch, type FindQuery } from './find-query.ts';
import { readSearchable } from './read-searchable.ts';

export interface ScanTarget {
  /** Root-relative with '/': the key of the result. */
  path: string;
  /** Absolute real path: what is read. */
  absolutePath: string;
  size: number;
}

export interface ScanRequest {
  query: FindQuery;
  /**
   * The files; or batches of them as a walk finds them, so the scan starts before the walk ends (a search asked
   * while the file list's first walk runs). The scan ends once the batches have and every file is read.
   */
  files: readonly ScanTarget[] | AsyncIterable<readonly ScanTarget[]>;
  signal?: AbortSignal;
  /** A `Date.now()` time past which the scan fails (scanTimedOut). */
  deadlineMs?: number;
}

export interface TextScanner {
  /** Files with hits only, keyed by `path`, in the order of `files` (of the batches, as they came). */
  scan(request: ScanRequest): Promise<Map<string, FileTextMatch>>;
  /** Gets ready for a scan soon (Node: starts the worker threads, so the first query does not wait for them). */
  warm?(): void;
  /**
   * The files (absolute paths) read whole that lack the literals every match of the query needs
   * (./holds-required.ts): another dialect's own search need not read them. A file not read (gone, over
   * MAX_SEARCHED_FILE_BYTES, a link) is never in the set. Only where it runs in parallel (Node: the scan pool);
   * in-process it would read every file on the thread it is meant to spare.
   */
  ruleOut?(request: ScanRequest): Promise<Set<string>>;
}

/** Files read ahead of the matcher, so storage latency overlaps matching. */
const READ_AHEAD = 8;

export function createFsScanner(fs: FileSystem): TextScanner {
  return {
    async scan({ query, files, signal, deadlineMs }) {
      const startedAt = Date.now();
      const compiled = compileFind(query);
      const results = new Map<string, FileTextMatch>();
      const check = () => {
        signal?.throwIfAborted();
        if (deadlineMs !== undefined && Date.now() > deadlineMs) throw scanTimedOut(deadlineMs - startedAt);
      };
      for await (const batch of scanBatches(files)) {
        const searchable = batch.filter((file) => file.size <= MAX_SEARCHED_FILE_BYTES);
        const reads: Promise<Uint8Array | undefined>[] = [];
        const startRead = (at: number) => {
          if (at < searchable.length && reads[at] === undefined) reads[at] = readSearchable(fs, searchable[at]!.absolutePath);
        };
        try {
          for (let at = 0; at < searchable.length; at++) {
            check();
            for (let ahead = at; ahead < at + READ_AHEAD; ahead++) startRead(ahead);
            const bytes = await reads[at]!;
            reads[at] = DONE; // let the bytes go
            const match = bytes === undefined ? null : compiled.matchBytes(bytes);
            if (match !== null) results.set(searchable[at]!.path, match);
          }
        } finally {
          for (const read of reads) read?.catch(() => {}); // reads ahead of a failure finish unobserved
        }
      }
      return results;
    },
  };
}

const DONE: Promise<undefined> = Promise.resolve(undefined);

/** A scan's files as batches: a list is one batch. */
export async function* scanBatches(files: ScanRequest['files']): AsyncGenerator<readonly ScanTarget[]> {
  if (isFileList(files)) yield files;
  else yield* files;
}

function isFileList(files: ScanRequest['files']): files is readonly ScanTarget[] {
  return Array.isArray(files);
}

/** The failure of a scan past its deadline; `budgetMs` is how long it was given. */
export function scanTimedOut(budgetMs: number): WorkspaceError {
  const seconds = Math.max(0, Math.round(budgetMs / 100) / 10);
  return new WorkspaceError('bad-request', `search took longer than ${seconds} s; narrow it with include`, { timeBudgetMs: budgetMs });
}
