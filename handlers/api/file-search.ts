/**
 * The file-search engine behind `GET /api/files/search` (seed 000): a bounded, deterministic walk of the
 * workspace and the ranking of its files against a query. Edge-clean: it only talks to the FileSystem.
 *
 * Walk order — breadth-first, each folder's entries in code-unit order of their names:
 *   the root's files, then the files of each of its sub-folders (in name order), then their sub-folders…
 * so an empty query lists the shallowest files first. Folders are read ahead by a small pool of concurrent
 * `readdir` calls, but results are consumed strictly in that order, so output (and the entry budget) never
 * depends on timing.
 *
 * Rules:
 * - Folders named `.git` or `node_modules`, and the `exclude` folder, are never entered (they still count as
 *   entries seen).
 * - The walk stops after `maxEntries` directory entries: every entry `readdir` returns counts (files,
 *   folders, links, ignored folders), in walk order; entries past the budget are not looked at.
 * - A folder that cannot be read (permission denied, vanished, …) is skipped silently; so is an entry whose
 *   type cannot be established. Only the root's own failure is reported (the handler maps it to 404 etc.).
 * - Symlinks: a link to a folder is never entered (no cycles, no escaping the tree). A link to a regular
 *   file is listed under the link's own path — when `confineTo` is set, only if its real target is inside
 *   that folder, so every listed path is usable by the other (confined) endpoints. Dangling links, and
 *   sockets/FIFOs/devices, are not files and are skipped.
 */
import type { DirEntry, FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { isInside } from '../../adapters/fs/posix-path.ts';
import type { FileList, FolderVisitor, WalkedFolder, WalkSummary } from '../../core/search/file-list/file-list.ts';

/** Folder names the walk never enters. */
export const IGNORED_FOLDERS: ReadonlySet<string> = new Set(['.git', 'node_modules']);

/** readdir calls in flight ahead of the consumer: enough to keep the host's I/O threads busy. */
const DEFAULT_CONCURRENCY = 16;

export interface WalkOptions {
  /** Stop after this many directory entries (seed 000: 50 000). */
  maxEntries: number;
  /** Folders read ahead concurrently (default 16). */
  concurrency?: number;
  /** When set, a symlinked file is listed only if its real path is inside this (real, absolute) folder. */
  confineTo?: string;
  /** Absolute real path of a folder never entered (the agents' copies: not part of the workspace's tree). */
  exclude?: string;
}

// The walk's shapes are the live file list's too (core/search/file-list answers the same walk from memory).
export type { FolderVisitor, WalkedFolder, WalkSummary };

type EntryKind = 'file' | 'folder' | 'skip';
interface Entry {
  name: string;
  kind: EntryKind;
}
/** A folder's entries sorted by name; null if it could not be read; `{ failure }` for a non-FsError (a bug). */
type Listing = Entry[] | null | { failure: unknown };

export async function walkFiles(
  fs: FileSystem,
  root: string,
  visit: FolderVisitor,
  options: WalkOptions,
): Promise<WalkSummary> {
  const concurrency = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
  const folders: WalkedFolder[] = [{ path: root, relPath: '' }];
  const listings: (Promise<Listing> | undefined)[] = [];
  let started = 0;
  let seen = 0;

  for (let i = 0; i < folders.length; i++) {
    // The root's failure is the caller's to report, so it is read directly; later folders are read ahead.
    let listing: Listing;
    if (i === 0) {
      listing = await readFolder(fs, root, options.confineTo);
      started = 1;
    } else {
      while (started < folders.length && started - i < concurrency) {
        listings[started] = readFolder(fs, folders[started]!.path, options.confineTo).catch(
          (error: unknown): Listing => (isFsError(error) ? null : { failure: error }),
        );
        started++;
      }
      listing = await listings[i]!;
      listings[i] = undefined;
    }
    if (listing === null) continue;
    if (!Array.isArray(listing)) throw listing.failure;

    const folder = folders[i]!;
    const take = Math.min(listing.length, options.maxEntries - seen);
    seen += take;
    const files: string[] = [];
    for (let j = 0; j < take; j++) {
      const entry = listing[j]!;
      if (entry.kind === 'file') files.push(entry.name);
      else if (entry.kind === 'folder' && !IGNORED_FOLDERS.has(entry.name)) {
        const path = childPath(folder.path, entry.name);
        if (path === options.exclude) continue;
        folders.push({
          path,
          relPath: folder.relPath === '' ? entry.name : folder.relPath + '/' + entry.name,
        });
      }
    }
    if (visit(folder, files) === true) return { entriesSeen: seen, truncated: false };
    if (seen >= options.maxEntries) return { entriesSeen: seen, truncated: true };
  }
  return { entriesSeen: seen, truncated: false };
}

function childPath(folder: string, name: string): string {
  return folder === '/' ? '/' + name : folder + '/' + name;
}

function byName(a: Entry, b: Entry): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

async function readFolder(fs: FileSystem, path: string, confineTo: string | undefined): Promise<Entry[]> {
  const raw: DirEntry[] = await fs.readdir(path);
  const entries: Entry[] = new Array(raw.length);
  const links: Promise<void>[] = [];
  for (let i = 0; i < raw.length; i++) {
    const { name, type } = raw[i]!;
    if (type === 'symlink') {
      const entry: Entry = { name, kind: 'skip' };
      entries[i] = entry;
      links.push(
        linkedFileKind(fs, childPath(path, name), confineTo).then((kind) => {
          entry.kind = kind;
        }),
      );
    } else {
      entries[i] = { name, kind: type === 'file' ? 'file' : type === 'dir' ? 'folder' : 'skip' };
    }
  }
  if (links.length > 0) await Promise.all(links);
  return entries.sort(byName);
}

/** 'file' for a link to a regular file (inside `confineTo` when set); 'skip' for anything else. */
async function linkedFileKind(fs: FileSystem, path: string, confineTo: string | undefined): Promise<EntryKind> {
  try {
    if ((await fs.stat(path)).type !== 'file') return 'skip';
    if (confineTo !== undefined && !isInside(confineTo, await fs.realpath(path))) return 'skip';
    return 'file';
  } catch (error) {
    if (isFsError(error)) return 'skip';
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------------
// Ranking

export interface FileHit {
  /** Base name. */
  name: string;
  /** Root-relative path with '/'. */
  relPath: string;
}

interface RankedHit extends FileHit {
  /** The base name contains the query (ranks first). */
  nameMatch: boolean;
}

/**
 * The seed's ranking: hits whose base name contains the query first, then shorter relPath (UTF-16 code
 * units), then relPath in plain code-unit order.
 */
export function compareHits(a: RankedHit, b: RankedHit): number {
  if (a.nameMatch !== b.nameMatch) return a.nameMatch ? -1 : 1;
  if (a.relPath.length !== b.relPath.length) return a.relPath.length - b.relPath.length;
  return a.relPath < b.relPath ? -1 : a.relPath > b.relPath ? 1 : 0;
}

/**
 * Keeps the best `limit` items seen under `compare`, in O(n log limit) overall: candidates no better than
 * the current worst kept item are rejected at once; the buffer is sorted and cut back when it doubles.
 */
export class BestOf<T> {
  private items: T[] = [];
  private worst: T | undefined;

  constructor(
    private readonly limit: number,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  /** Considers one item; it is kept only while it ranks among the best `limit`. */
  offer(item: T): void {
    if (this.limit <= 0) return;
    if (this.worst !== undefined && this.compare(item, this.worst) >= 0) return;
    this.items.push(item);
    if (this.items.length >= this.limit * 2) this.trim();
  }

  /** The kept items, best first. */
  result(): T[] {
    this.trim();
    return this.items.slice();
  }

  private trim(): void {
    this.items.sort(this.compare);
    if (this.items.length >= this.limit) {
      this.items.length = this.limit;
      this.worst = this.items[this.limit - 1];
    }
  }
}

export interface FindOptions extends WalkOptions {
  /** Case-insensitive substring of the root-relative path; "" lists the first files in walk order. */
  query: string;
  limit: number;
  /**
   * The live file list of this root (made with `exclude` as its excluded folder): once it is ready the walk is
   * answered from it (same order and budget, no disk reads); until then, or without one, from the disk.
   */
  list?: FileList;
}

/** `walkFiles`, or the same walk over the live file list when one is ready. */
function walkForFind(fs: FileSystem, root: string, visit: FolderVisitor, options: FindOptions): Promise<WalkSummary> {
  const list = options.list;
  // The list answers only when it holds the whole walk (not while it keeps a `bower_components` as a name).
  if (list?.isReady && list.coversBreadthFirstWalk()) {
    const linksLeavingRoot = options.confineTo === undefined;
    return Promise.resolve(list.walkBreadthFirst(visit, { maxEntries: options.maxEntries, linksLeavingRoot }));
  }
  return walkFiles(fs, root, visit, options);
}

/**
 * Finds files under `root` whose root-relative path contains `query` (case-insensitive), best `limit`
 * first. An empty query returns the first `limit` files in walk order and stops walking once it has them;
 * any other query walks the whole tree (up to the entry budget), since the best hit may come last.
 * Errors reading `root` itself propagate (FsError); everything below it is skipped when unreadable.
 */
export async function findFiles(fs: FileSystem, root: string, options: FindOptions): Promise<FileHit[]> {
  const { limit } = options;
  if (options.query === '') {
    const hits: FileHit[] = [];
    if (limit <= 0) return hits;
    await walkForFind(
      fs,
      root,
      (folder, names) => {
        for (const name of names) {
          hits.push({ name, relPath: folder.relPath === '' ? name : folder.relPath + '/' + name });
          if (hits.length >= limit) return true;
        }
        return false;
      },
      options,
    );
    return hits;
  }

  const needle = options.query.toLowerCase();
  // Without a '/' in the query a match cannot span segments: it is in the folder's path or in the name.
  const canSpan = needle.includes('/');
  const best = new BestOf<RankedHit>(limit, compareHits);
  await walkForFind(
    fs,
    root,
    (folder, names) => {
      const prefix = folder.relPath === '' ? '' : folder.relPath + '/';
      const lowerPrefix = prefix.toLowerCase();
      const folderMatches = lowerPrefix.includes(needle);
      for (const name of names) {
        const lowerName = name.toLowerCase();
        const nameMatch = lowerName.includes(needle);
        if (!nameMatch && !folderMatches && !(canSpan && (lowerPrefix + lowerName).includes(needle))) continue;
        best.offer({ name, relPath: prefix + name, nameMatch });
      }
      return false;
    },
    options,
  );
  return best.result().map(({ name, relPath }) => ({ name, relPath }));
}
