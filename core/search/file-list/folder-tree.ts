/**
 * The file list's picture of the tree: one node per folder it entered, each holding every entry of that folder
 * sorted by name (files, folders, links, anything else), since ori's walk counts them all.
 */
import { flatString, type ListedFile } from './listed-file.ts';

/** What a symbolic link points at, as ori's walk lists it: a regular file inside the root, outside, or not a file. */
export type LinkTarget = 'inside' | 'outside' | 'none';

export type TreeEntry =
  /** `file` is undefined for a file the list never lists (a `.git` file): ori still counts and lists it. */
  | { readonly name: string; readonly kind: 'file'; file: ListedFile | undefined }
  /** `folder` is undefined for a folder the list does not enter (`.git`, an on-demand store, an excluded folder). */
  | { readonly name: string; readonly kind: 'folder'; readonly folder: FolderNode | undefined; readonly onDemand: boolean }
  /** `resolved`: the link's real target, or where it would point when dangling (to hear when that appears). */
  | { readonly name: string; readonly kind: 'link'; target: LinkTarget; resolved: string | undefined }
  | { readonly name: string; readonly kind: 'other' };

export interface FolderNode {
  /** Root-relative with '/' ("" for the root). */
  readonly relPath: string;
  /** Absolute real path. */
  readonly path: string;
  /** Sorted by name in code-unit order; null when the folder could not be read. */
  entries: TreeEntry[] | null;
  /** Everything inside is ignored (the folder itself is, or it is a Python virtualenv). */
  ignored: boolean;
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sortEntries(entries: TreeEntry[]): TreeEntry[] {
  return entries.sort((a, b) => compareNames(a.name, b.name));
}

/** Index of `name` in sorted `entries`, or `-(insertion point) - 1`. */
export function findEntry(entries: readonly TreeEntry[], name: string): number {
  let low = 0;
  let high = entries.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const order = compareNames(entries[mid]!.name, name);
    if (order === 0) return mid;
    if (order < 0) low = mid + 1;
    else high = mid - 1;
  }
  return -low - 1;
}

/** Puts `entry` in its place, replacing an entry of the same name. */
export function putEntry(entries: TreeEntry[], entry: TreeEntry): void {
  const at = findEntry(entries, entry.name);
  if (at >= 0) entries[at] = entry;
  else entries.splice(-at - 1, 0, entry);
}

export function entryNamed(node: FolderNode, name: string): TreeEntry | undefined {
  if (!node.entries) return undefined;
  const at = findEntry(node.entries, name);
  return at >= 0 ? node.entries[at] : undefined;
}

/** The listed file at root-relative `relPath`, found down the folders (a binary search per level), if any. */
export function fileAt(root: FolderNode, relPath: string): ListedFile | undefined {
  let node = root;
  let at = 0;
  for (;;) {
    const slash = relPath.indexOf('/', at);
    const entry = entryNamed(node, slash < 0 ? relPath.slice(at) : relPath.slice(at, slash));
    if (slash < 0) return entry?.kind === 'file' ? entry.file : undefined;
    if (entry?.kind !== 'folder' || !entry.folder) return undefined;
    node = entry.folder;
    at = slash + 1;
  }
}

/** Flat (see flatString): the list keeps every file's and folder's path. */
export function childRelPath(folder: string, name: string): string {
  return folder === '' ? name : flatString(folder + '/' + name);
}

/** The folder nodes of a subtree, `node` first, depth-first with each folder's sub-folders in name order. */
export function* subtreeFolders(node: FolderNode): Generator<FolderNode> {
  const stack = [node];
  while (stack.length > 0) {
    const folder = stack.pop()!;
    yield folder;
    const entries = folder.entries ?? [];
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i]!;
      if (entry.kind === 'folder' && entry.folder) stack.push(entry.folder);
    }
  }
}
