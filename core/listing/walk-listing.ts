/**
 * The NoIDE protocol's listing walk (docs/noide-protocol.md#listing): what `read_directory` shows as a tree, what
 * `list_files` flattens into paths, and the folders `search_in_files` scans. Edge-clean: FileSystem only.
 *
 * - Breadth-first from the top folder, each folder's entries sorted as the UI shows them: folders first (a
 *   link counts as what it points to), then names case-insensitively (ties in code-unit order, so the order
 *   never depends on the backend).
 * - Depth counts from 0, the top folder's own entries; entries deeper than `maxDepth` are not listed, so a
 *   folder at `maxDepth` stays closed (no `children`). An opened empty folder has `children: []`.
 * - `maxEntries` bounds the entries listed in all. The top folder keeps its first `maxEntries` entries; after
 *   that a folder is opened only if ALL its entries fit what is left — never half-listed, so a UI never shows
 *   a partial folder as complete — and the walk goes on with the next folder (which may be smaller) until
 *   the budget is spent. A closed folder is one the UI opens with another `read_directory`.
 * - Skipped by name at any depth: `skip` (default: the §002 list), and the `excluded` folder (the agents'
 *   copies) by real path. A folder that cannot be read (permissions, vanished) stays closed; only the top
 *   folder's own failure is thrown (an FsError: `not-found`, `not-directory`, …).
 *
 * Symlinks (§002 leaves them open; this is the decision): a link is listed at its own path, never followed
 * by the walk, so nothing is listed twice, a cycle cannot form, and nothing outside the workspace is read.
 * A link whose real target is inside the workspace (and not in the excluded folder) is listed as what it
 * points to — a folder (left closed; opening it with `read_directory` resolves, with containment, to the
 * target) or a file, with the target's size and time. A link that dangles or loops is listed as a file, one
 * that resolves outside the workspace (or into the excluded folder) as the kind of thing it points to, both
 * without size or time and with `link.state` (`broken` / `outside`), so the listings that promise readable
 * files (`list_files`, the search) leave them out. core/tree/describe-link.ts makes the call, as it does for
 * Intentic's tree.
 */
import type { DirEntry } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { describeLink } from '../tree/describe-link.ts';
import { childPath } from '../tree/folder-nodes.ts';
import type { TreeLink } from '../tree/tree-entry.ts';
import type { TreePlace } from '../tree/tree-place.ts';
import { mapLimited } from './map-limited.ts';
import { SKIPPED_NAMES } from './skipped-names.ts';

/** Stats and link lookups in flight per folder. */
const DETAIL_CONCURRENCY = 32;

export interface ListingEntry {
  name: string;
  /** Absolute: the listed folder's real path joined with the name (a link's own location). */
  path: string;
  /** What it is, a link counting as its target; `other` for a FIFO, socket or device. */
  type: 'file' | 'dir' | 'other';
  /** Set for a symlink: its text, and `state` when it dangles or leaves the workspace. */
  link?: TreeLink;
  /** With `details`: bytes (files only) and modification time, the target's for a link inside the workspace. */
  size?: number;
  mtimeMs?: number;
  /** The folder's entries, when the walk opened it; absent when it left it closed. */
  children?: ListingEntry[];
}

export interface ListingWalkOptions {
  /** Deepest level listed (0: only the top folder's entries). */
  maxDepth: number;
  /** Entries listed in all (`Infinity`: no cap). */
  maxEntries: number;
  /** Names never listed (default: the §002 list). */
  skip?: ReadonlySet<string>;
  /** Look up sizes and times (default false: names and kinds cost one readdir per folder). */
  details?: boolean;
}

/** One opened folder, in walk order; `entries` are its children as they appear in the tree. */
export interface ListedFolder {
  path: string;
  /** Depth of `entries` (0 for the top folder's). */
  depth: number;
  entries: ListingEntry[];
}

/**
 * Walks `top` (an absolute real path inside `place.root`), yielding each opened folder. The first folder
 * yielded is the top one: its `entries` are the whole tree once the walk is done (later folders are attached
 * as `children`). A consumer may stop early (the search does, at its match cap); nothing more is read then.
 */
export async function* walkListing(place: TreePlace, top: string, options: ListingWalkOptions): AsyncGenerator<ListedFolder> {
  const skip = options.skip ?? SKIPPED_NAMES;
  const details = options.details ?? false;
  let remaining = Math.max(0, options.maxEntries);

  const topEntries = (await listFolder(place, top, skip)).slice(0, remaining);
  remaining -= topEntries.length;
  if (details) await addDetails(place, topEntries);
  yield { path: top, depth: 0, entries: topEntries };

  const queue: { entry: ListingEntry; depth: number }[] = [];
  const enqueue = (entries: ListingEntry[], depth: number) => {
    if (depth >= options.maxDepth) return; // their children would be deeper than listed
    for (const entry of entries) if (entry.type === 'dir' && entry.link === undefined) queue.push({ entry, depth });
  };
  enqueue(topEntries, 0);

  for (let i = 0; i < queue.length && remaining > 0; i++) {
    const { entry, depth } = queue[i]!;
    let entries: ListingEntry[];
    try {
      entries = await listFolder(place, entry.path, skip);
    } catch (error) {
      if (isFsError(error)) continue;
      throw error;
    }
    if (entries.length > remaining) continue;
    remaining -= entries.length;
    if (details) await addDetails(place, entries);
    entry.children = entries;
    yield { path: entry.path, depth: depth + 1, entries };
    enqueue(entries, depth + 1);
  }
}

/** The folder's entries, skipped names and the excluded folder left out, links described, sorted. */
async function listFolder(place: TreePlace, folder: string, skip: ReadonlySet<string>): Promise<ListingEntry[]> {
  const raw = (await place.fs.readdir(folder)).filter(
    ({ name }) => !skip.has(name) && childPath(folder, name) !== place.excluded,
  );
  const entries = await mapLimited(raw, DETAIL_CONCURRENCY, (entry) => toEntry(place, folder, entry));
  const listed = entries.filter((entry): entry is ListingEntry => entry !== null);
  return listed.sort(compareListed);
}

async function toEntry(place: TreePlace, folder: string, { name, type }: DirEntry): Promise<ListingEntry | null> {
  const path = childPath(folder, name);
  if (type !== 'symlink') return { name, path, type };
  const described = await describeLink(place, path);
  return described && { name, path, type: described.type, link: described.link };
}

/** Sizes and times of `entries`; one that vanished or cannot be looked up is listed without them. */
async function addDetails(place: TreePlace, entries: ListingEntry[]): Promise<void> {
  await mapLimited(entries, DETAIL_CONCURRENCY, async (entry) => {
    if (entry.link?.state !== undefined) return; // nothing outside the workspace is looked at
    try {
      const stat = entry.link ? await place.fs.stat(entry.path) : await place.fs.lstat(entry.path);
      if (entry.type === 'file') entry.size = stat.size;
      entry.mtimeMs = stat.mtimeMs;
    } catch (error) {
      if (!isFsError(error)) throw error;
    }
  });
}

/** Folders first, then names case-insensitively, ties (names differing only in case) in code-unit order. */
export function compareListed(a: Pick<ListingEntry, 'type' | 'name'>, b: Pick<ListingEntry, 'type' | 'name'>): number {
  if ((a.type === 'dir') !== (b.type === 'dir')) return a.type === 'dir' ? -1 : 1;
  const left = a.name.toLowerCase();
  const right = b.name.toLowerCase();
  if (left !== right) return left < right ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** What `list_files` and the search may read: a regular file, or a link to one inside the workspace. */
export function isReadableFile(entry: ListingEntry): boolean {
  return entry.type === 'file' && entry.link?.state === undefined;
}
