/**
 * Intentic's `tree` (docs/intentic.md#tree): the workspace as one breadth-first walk under an entry budget.
 * Edge-clean: it only talks to the FileSystem and the ignore rules.
 *
 * - The root's entries are listed first, sorted (folders first, then by name); if there are more than the
 *   budget, the first `budget` are kept and `hidden` says how many were not.
 * - Then folders are opened in breadth-first order (each level's folders in listed order). A folder is opened
 *   only if ALL its entries fit the remaining budget; otherwise it stays closed (no `children`) — never
 *   half-listed — and the walk goes on with the next folder, which may be smaller: the budget is filled.
 *   Once it is spent the walk stops; folders not reached yet stay closed, empty ones included.
 * - Never entered: ignored folders (listed with `ignored: true`; a folder holding `pyvenv.cfg` is found out
 *   when it is read), links that are broken or leave the workspace, links to the folder holding them or to one
 *   above it, and links to a folder the walk has already opened. A real folder is opened even when a link
 *   earlier in walk order already showed it (its contents then appear twice, both within the budget): the
 *   real location is never the one left closed. Together this never re-enters a cycle.
 * - A folder that cannot be read stays closed; only the root's own failure is thrown (an FsError).
 * - The excluded folder (the agents' copies) is not listed at all.
 *
 * Folders are read ahead of the consumer by a bounded pool (`concurrency` readdir calls in flight), and sizes
 * and link targets settle concurrently too, but every decision is taken in walk order, so the result never
 * depends on timing.
 */
import { isFsError } from '../../adapters/fs/fs-error.ts';
import type { FolderMatcher, IgnoreRules } from '../ignore/ignore-rules.ts';
import {
  describedOf,
  firstThatFit,
  folderNodes,
  listTreeFolder,
  matcherFor,
  settle,
  startSizes,
  toEntries,
  type FolderListing,
  type TreeNode,
} from './folder-nodes.ts';
import type { TreeEntry } from './tree-entry.ts';
import type { TreePlace } from './tree-place.ts';

/** readdir calls in flight ahead of the consumer. */
const DEFAULT_CONCURRENCY = 16;

export interface WalkTreeOptions {
  /** Entries listed in all (docs/intentic.md#tree: 5000). */
  budget: number;
  rules: IgnoreRules;
  /** Look up file sizes (default true); the resolve walk only needs names. */
  sizes?: boolean;
  /** Open linked folders (default true); the resolve walk wants each file at its real location only. */
  enterLinks?: boolean;
  /** Flag ignored files (default true); the resolve walk only needs the folders' verdicts. */
  flagIgnoredFiles?: boolean;
  concurrency?: number;
}

export interface WalkedTree {
  tree: TreeEntry[];
  /** Root entries that did not fit the budget. */
  hidden: number;
}

/** A folder read ahead: its listing, and its ignore rules when it may still fit (null: not entered / unreadable). */
type ReadAhead = { listing: FolderListing; matcher: Promise<FolderMatcher> | undefined } | null;

export async function walkTree(place: TreePlace, options: WalkTreeOptions): Promise<WalkedTree> {
  const { rules } = options;
  const budget = Math.max(0, Math.floor(options.budget));
  const sizes = options.sizes ?? true;
  const enterLinks = options.enterLinks ?? true;
  const flagFiles = options.flagIgnoredFiles ?? true;
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);

  const rootListing = await listTreeFolder(place, place.root);
  const rootNodes = folderNodes(place, place.root, '', rootListing, await matcherFor(rules, '', rootListing), flagFiles);
  const { kept, hidden } = await firstThatFit(rootNodes, budget);
  let remaining = budget - kept.length;

  const opened = new Set<string>([place.root]);
  const queue: TreeNode[] = [];
  const reads: (Promise<ReadAhead> | undefined)[] = [];
  const accept = (nodes: TreeNode[]) => {
    if (sizes) startSizes(place, nodes);
    for (const node of nodes) if (node.mayBeFolder) queue.push(node);
  };
  accept(kept);

  const readAhead = async (node: TreeNode): Promise<ReadAhead> => {
    const described = await describedOf(node);
    if (described?.enter === undefined) return null;
    if (described.link && !enterLinks) return null;
    try {
      const listing = await listTreeFolder(place, described.enter);
      // `remaining` only shrinks: a folder too big now is never opened, so its rules are not worth loading.
      const mayFit = !listing.virtualenv && listing.entries.length <= remaining;
      return { listing, matcher: mayFit ? matcherFor(rules, node.rel, listing) : undefined };
    } catch (error) {
      if (isFsError(error)) return null;
      throw error;
    }
  };

  let ahead = 0;
  // Once the budget is spent nothing more can be opened (an empty folder not yet reached stays closed too).
  for (let i = 0; i < queue.length && remaining > 0; i++) {
    for (ahead = Math.max(ahead, i); ahead < queue.length && ahead - i < concurrency; ahead++) {
      reads[ahead] = readAhead(queue[ahead]!);
    }
    const node = queue[i]!;
    const read = await reads[i]!;
    reads[i] = undefined;
    const described = node.described;
    if (!read || !described?.enter) continue;
    // A real folder is always opened (it is where its files live); a link only to a folder not opened yet.
    if (described.link && opened.has(described.enter)) continue;
    if (read.listing.virtualenv) {
      node.virtualenv = true;
      continue;
    }
    if (read.listing.entries.length > remaining || !read.matcher) continue;
    remaining -= read.listing.entries.length;
    opened.add(described.enter);
    node.children = folderNodes(place, described.enter, node.rel, read.listing, await read.matcher, flagFiles);
    accept(node.children);
  }
  // Reads still in flight past the point the walk stopped are left to finish on their own.
  for (const read of reads) read?.catch(() => {});

  await settle(kept);
  return { tree: toEntries(kept), hidden };
}
