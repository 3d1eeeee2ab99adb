/**
 * The file-search engine behind `GET /api/files/search` (docs/ori.md#search): a bounded, deterministic walk of the
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
import type { FileList, FolderVisitor, WalkedFolder, WalkSummary } from '../search/file-list/file-list.ts';
import { budgetedBreadthFirst, type Placed } from '../walk/budgeted-breadth-first.ts';

/** Folder names the walk never enters. */
export const IGNORED_FOLDERS: ReadonlySet<string> = new Set(['.git', 'node_modules']);

/** readdir calls in flight ahead of the consumer: enough to keep the host's I/O threads busy. */
const DEFAULT_CONCURRENCY = 16;

export interface WalkOptions {
  /** Stop after this many directory entries (docs/ori.md#search: 50 000). */
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
  const place = (entry: Entry, folder: WalkedFolder): Placed<WalkedFolder> => {
    if (entry.kind === 'file') return entry.name;
    if (entry.kind !== 'folder' || IGNORED_FOLDERS.has(entry.name)) return undefined;
    const path = childPath(folder.path, entry.name);
    if (path === options.exclude) return undefined;
    return { path, relPath: folder.relPath === '' ? entry.name : folder.relPath + '/' + entry.name };
  };
  const walk = budgetedBreadthFirst<WalkedFolder, Entry>({ path: root, relPath: '' }, options.maxEntries, place, visit);
  const listings: (Promise<Listing> | undefined)[] = [];
  let started = 0;
  let step = walk.next();
  while (!step.done) {
    const { queue, index } = step.value;
    // The root's failure is the caller's to report, so it is read directly; later folders are read ahead.
    let listing: Listing;
    if (index === 0) {
      listing = await readFolder(fs, root, options.confineTo);
      started = 1;
    } else {
      while (started < queue.length && started - index < concurrency) {
        listings[started] = readFolder(fs, queue[started]!.path, options.confineTo).catch(
          (error: unknown): Listing => (isFsError(error) ? null : { failure: error }),
        );
        started++;
      }
      listing = await listings[index]!;
      listings[index] = undefined;
    }
    if (listing !== null && !Array.isArray(listing)) throw listing.failure;
    step = walk.next(listing);
  }
  return step.value;
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

/** The live file list when it answers the walk: ready, and holding the whole walk (not while it keeps a `bower_components` as a name). */
function answeringList(options: FindOptions): FileList | undefined {
  const list = options.list;
  return list?.isReady && list.coversBreadthFirstWalk() ? list : undefined;
}

/** `walkFiles`, or the same walk over the live file list when one is ready. */
function walkForFind(fs: FileSystem, root: string, visit: FolderVisitor, options: FindOptions): Promise<WalkSummary> {
  const list = answeringList(options);
  if (list !== undefined) {
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
  const best = new BestOf<RankedHit>(limit, compareHits);
  const list = answeringList(options);
  if (list !== undefined) offerListed(best, needle, foldedWalk(list, options));
  else {
    await walkFiles(fs, root, (folder, names) => offerMatches(best, needle, foldFolder(folder.relPath, names)), options);
  }
  return best.result().map(({ name, relPath }) => ({ name, relPath }));
}

/** One walked folder's files with the names and the folder's path case-folded (ori compares lower cases). */
interface FoldedFolder {
  /** The folder's root-relative path and '/' ("" for the root). */
  prefix: string;
  lowerPrefix: string;
  names: readonly string[];
  lowerNames: readonly string[];
}

function foldFolder(relPath: string, names: readonly string[]): FoldedFolder {
  const prefix = relPath === '' ? '' : relPath + '/';
  return { prefix, lowerPrefix: prefix.toLowerCase(), names, lowerNames: names.map((name) => name.toLowerCase()) };
}

/** Offers the files of `folder` whose root-relative path (lower case) contains `needle` (lower case). */
function offerMatches(best: BestOf<RankedHit>, needle: string, folder: FoldedFolder): void {
  const { prefix, lowerPrefix, names, lowerNames } = folder;
  const folderMatches = lowerPrefix.includes(needle);
  const tails = spanningTails(needle, lowerPrefix);
  for (let i = 0; i < names.length; i++) {
    const lowerName = lowerNames[i]!;
    const nameMatch = lowerName.includes(needle);
    if (!nameMatch && !folderMatches && !startsWithAny(lowerName, tails)) continue;
    best.offer({ name: names[i]!, relPath: prefix + names[i]!, nameMatch });
  }
}

/**
 * A match in `lowerPrefix + lowerName` lies in the prefix, in the name, or spans the two: the prefix ends with a
 * head of the needle and the name starts with the rest. These are those rests, found once per folder (none unless
 * the needle holds a '/', the prefix ending with one), so no name is joined to its folder to be searched.
 */
function spanningTails(needle: string, lowerPrefix: string): string[] {
  const tails: string[] = [];
  if (lowerPrefix === '' || !needle.includes('/')) return tails;
  for (let split = 1; split < needle.length; split++) {
    if (lowerPrefix.endsWith(needle.slice(0, split))) tails.push(needle.slice(split));
  }
  return tails;
}

function startsWithAny(text: string, heads: readonly string[]): boolean {
  for (const head of heads) if (text.startsWith(head)) return true;
  return false;
}

/**
 * The live list's walk (same order and budget as the disk's) as one block of text: every listed file's folded
 * relPath (its folder's path and its name, each lower-cased as the disk walk does), one after another. Kept per
 * list generation and walk options: every keystroke of an `@` search runs a query, and walking and lower-casing
 * the kernel tree's 78 579 names each time cost more than the match; over the block the match is a native
 * `indexOf` hopping from one occurrence to the next, so only files that hold the query are visited.
 */
interface FoldedWalk {
  generation: number;
  maxEntries: number;
  linksLeavingRoot: boolean;
  text: string;
  /** File f's folded relPath is `text[starts[f], starts[f + 1])`; its name's part starts at `nameStarts[f]`. */
  starts: Uint32Array;
  nameStarts: Uint32Array;
  names: string[];
  /** File f is in the folder whose prefix ("" or relPath + '/') is `prefixes[folderOf[f]]`. */
  folderOf: Uint32Array;
  prefixes: string[];
}
const foldedWalks = new WeakMap<FileList, FoldedWalk>();

function foldedWalk(list: FileList, options: FindOptions): FoldedWalk {
  const linksLeavingRoot = options.confineTo === undefined;
  const kept = foldedWalks.get(list);
  if (
    kept !== undefined &&
    kept.generation === list.generation &&
    kept.maxEntries === options.maxEntries &&
    kept.linksLeavingRoot === linksLeavingRoot
  ) {
    return kept;
  }
  const parts: string[] = [];
  const starts: number[] = [];
  const nameStarts: number[] = [];
  const names: string[] = [];
  const folderOf: number[] = [];
  const prefixes: string[] = [];
  let at = 0;
  list.walkBreadthFirst(
    (folder, fileNames) => {
      if (fileNames.length === 0) return;
      const { prefix, lowerPrefix, lowerNames } = foldFolder(folder.relPath, fileNames);
      for (let i = 0; i < fileNames.length; i++) {
        starts.push(at);
        nameStarts.push(at + lowerPrefix.length);
        parts.push(lowerPrefix, lowerNames[i]!);
        at += lowerPrefix.length + lowerNames[i]!.length;
        names.push(fileNames[i]!);
        folderOf.push(prefixes.length);
      }
      prefixes.push(prefix);
    },
    { maxEntries: options.maxEntries, linksLeavingRoot },
  );
  starts.push(at);
  const walk: FoldedWalk = {
    generation: list.generation,
    maxEntries: options.maxEntries,
    linksLeavingRoot,
    text: parts.join(''),
    starts: Uint32Array.from(starts),
    nameStarts: Uint32Array.from(nameStarts),
    names,
    folderOf: Uint32Array.from(folderOf),
    prefixes,
  };
  foldedWalks.set(list, walk);
  return walk;
}

/**
 * Offers every file of `walk` whose folded relPath holds `needle` (non-empty, lower case) — what `offerMatches`
 * offers folder by folder: a match in the folder's part, the name's, or across the two. An occurrence running
 * into the next file's text is none; the name matches when an occurrence starts in it (the last one is checked).
 */
function offerListed(best: BestOf<RankedHit>, needle: string, walk: FoldedWalk): void {
  const { text, starts, nameStarts, names, folderOf, prefixes } = walk;
  const n = needle.length;
  let file = -1;
  let last = -1;
  const offer = () => {
    if (file < 0) return;
    const name = names[file]!;
    best.offer({ name, relPath: prefixes[folderOf[file]!]! + name, nameMatch: last >= nameStarts[file]! });
  };
  let at = 0;
  for (let p = text.indexOf(needle); p !== -1; p = text.indexOf(needle, p + 1)) {
    while (starts[at + 1]! <= p) at++;
    if (p + n > starts[at + 1]!) continue;
    if (at !== file) {
      offer();
      file = at;
    }
    last = p;
  }
  offer();
}
