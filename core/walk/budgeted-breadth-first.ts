/**
 * The one loop of the `@` file walk (docs/ori.md#search), written once for its two sources: the disk
 * (core/file-search/find-files.ts `walkFiles`, asynchronous, reading folders ahead) and the search engine's live
 * file list (core/search/file-list/breadth-first.ts, synchronous, from memory).
 *
 * Breadth-first; each folder's entries arrive already in code-unit order of their names; every entry a folder holds
 * counts against `maxEntries` (files, folders, links, sockets, folders not entered), in walk order, and entries past
 * the budget are not looked at. Which entries are listed files and which folders are entered is the source's call
 * (`place`). The loop is a generator that yields each folder whose entries it needs, with the whole queue, so a
 * driver may read folders ahead of the one asked for; it returns the walk's summary.
 */
import type { FolderVisitor, WalkedFolder, WalkSummary } from '../search/file-list/file-list.ts';

/** A listed file's name, a folder to enter, or undefined (counted, not listed). */
export type Placed<F> = string | F | undefined;

/** The folder whose entries the walk needs next: `queue[index]`. Folders after it are known in advance. */
export interface WalkStep<F> {
  readonly queue: readonly F[];
  readonly index: number;
}

/** The walk; answer each step with the folder's entries in name order, or null when it cannot be read (skipped). */
export type BudgetedWalk<F, E> = Generator<WalkStep<F>, WalkSummary, readonly E[] | null>;

export function* budgetedBreadthFirst<F extends WalkedFolder, E>(
  root: F,
  maxEntries: number,
  place: (entry: E, folder: F) => Placed<F>,
  visit: FolderVisitor,
): BudgetedWalk<F, E> {
  const queue: F[] = [root];
  let seen = 0;
  for (let index = 0; index < queue.length; index++) {
    const entries = yield { queue, index };
    if (entries === null) continue;
    const folder = queue[index]!;
    const take = Math.min(entries.length, maxEntries - seen);
    seen += take;
    const files: string[] = [];
    for (let j = 0; j < take; j++) {
      const placed = place(entries[j]!, folder);
      if (placed === undefined) continue;
      if (typeof placed === 'string') files.push(placed);
      else queue.push(placed);
    }
    if (visit({ path: folder.path, relPath: folder.relPath }, files) === true) return { entriesSeen: seen, truncated: false };
    if (seen >= maxEntries) return { entriesSeen: seen, truncated: true };
  }
  return { entriesSeen: seen, truncated: false };
}

/** Drives a walk whose entries are at hand (synchronously). */
export function runWalk<F, E>(walk: BudgetedWalk<F, E>, entriesOf: (folder: F) => readonly E[] | null): WalkSummary {
  let step = walk.next();
  while (!step.done) step = walk.next(entriesOf(step.value.queue[step.value.index]!));
  return step.value;
}
