/**
 * The files one query searches — listed files (with `includeIgnored`, the package stores' too), then `include` —
 * as the modes take them: the whole array, or, while the file list's first walk is still running, batches as a
 * direct walk of the disk finds them (core/search/file-list/walk-searchable.ts), so a scan starts on the first
 * folder read instead of after the last. Either way the same files, so a query asked while the list is building
 * gets the answer it gets once the list is ready (docs/intentic.md: freshness `building`).
 */
import { compareCodeUnits } from '../../text/code-units.ts';
import type { FileList } from '../file-list/file-list.ts';
import type { ListedFile } from '../file-list/listed-file.ts';
import type { WalkedBatch } from '../file-list/walk-searchable.ts';
import { scopeFiles } from './engine-parts.ts';

export interface QueryScope {
  /** Every file of the scope, in the list's order: code-unit order of path, then the package stores' files. */
  files(): Promise<readonly ListedFile[]>;
  /** The files as a walk still running finds them, each call from the first (absent: read `files`). */
  batches?(): AsyncIterable<readonly ListedFile[]>;
}

/** The scope over the live file list (its first walk done). */
export function listScope(fileList: FileList, includeIgnored: boolean, filter: ((path: string) => boolean) | undefined): QueryScope {
  let files: Promise<readonly ListedFile[]> | undefined;
  return { files: () => (files ??= scopeFiles(fileList, includeIgnored, filter)) };
}

/** A scope of files a stage already holds. */
export function fixedScope(files: readonly ListedFile[]): QueryScope {
  return { files: async () => files };
}

export interface WalkScope extends QueryScope {
  batches(): AsyncIterable<readonly ListedFile[]>;
  /** A file the walk found, by path (once the walk has ended). */
  get(path: string): ListedFile | undefined;
  /** Stops the walk if it still runs (the query is over). */
  close(): void;
}

/**
 * The scope of a query asked while the list's first walk runs: one direct walk, started now and recorded as it
 * goes, so each stage of the query (a rerun, a second text search) reads it without walking again.
 */
export function walkScope(walk: AsyncIterable<WalkedBatch>, filter: ((path: string) => boolean) | undefined): WalkScope {
  const arrived: (readonly ListedFile[])[] = [];
  const waiters = new Set<() => void>();
  let ended = false;
  let closed = false;
  let failure: { error: unknown } | undefined;
  let sorted: readonly ListedFile[] | undefined;
  let byPath: Map<string, ListedFile> | undefined;
  const stores: ListedFile[] = [];
  const notify = () => {
    for (const wake of waiters) wake();
    waiters.clear();
  };

  const done = (async () => {
    for await (const batch of walk) {
      if (closed) return; // leaving the loop ends the walk
      const kept = filter === undefined ? batch.files : batch.files.filter((file) => filter(file.path));
      if (kept.length === 0) continue;
      arrived.push(kept);
      if (batch.fromStores) stores.push(...kept);
      notify();
    }
  })().then(
    () => {
      ended = true;
      notify();
    },
    (error: unknown) => {
      failure = { error };
      ended = true;
      notify();
    },
  );

  return {
    async *batches() {
      for (let at = 0; ; ) {
        if (at < arrived.length) {
          yield arrived[at++]!;
          continue;
        }
        if (failure !== undefined) throw failure.error;
        if (ended) return;
        await new Promise<void>((resolve) => waiters.add(resolve));
      }
    },
    async files() {
      await done;
      if (failure !== undefined) throw failure.error;
      if (sorted === undefined) {
        const fromStores = new Set(stores);
        const tree = arrived.flat().filter((file) => !fromStores.has(file));
        sorted = [...tree.sort((a, b) => compareCodeUnits(a.path, b.path)), ...stores];
      }
      return sorted;
    },
    get(path) {
      if (!ended) return arrived.flat().find((file) => file.path === path);
      byPath ??= new Map(arrived.flat().map((file) => [file.path, file]));
      return byPath.get(path);
    },
    close() {
      closed = true;
    },
  };
}
