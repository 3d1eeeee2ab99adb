/**
 * One folder of the tree: list it, turn its entries into nodes whose details (link targets, sizes) settle
 * concurrently, and render settled nodes as Intentic entries. The walk (./walk-tree.ts) and the one-folder
 * listing (./list-children.ts) are both built from these.
 */
import type { DirEntry } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { isInside } from '../../adapters/fs/posix-path.ts';
import type { FolderMatcher, IgnoreRules } from '../ignore/ignore-rules.ts';
import { holdsVirtualenvMarker } from '../ignore/package-stores.ts';
import { GITIGNORE } from '../ignore/rules-file.ts';
import { describeLink } from './describe-link.ts';
import { compareEntries, type TreeEntry, type TreeLink } from './tree-entry.ts';
import type { TreePlace } from './tree-place.ts';

export interface FolderListing {
  /** The folder's entries in name order, the excluded folder left out. */
  entries: DirEntry[];
  /** It holds a `pyvenv.cfg`: a virtual environment, so ignored and not entered. */
  virtualenv: boolean;
  /** It holds a regular `.gitignore` (a hint for the ignore rules). */
  gitignore: boolean;
}

/** What a node turned out to be once its link (if any) was followed. */
export interface Described {
  type: 'file' | 'dir';
  ignored: boolean;
  link?: TreeLink;
  size?: number;
  /** The real path of a folder a walk may enter: not ignored, inside the workspace, not an ancestor of itself. */
  enter?: string;
}

export interface TreeNode {
  name: string;
  /** Root-relative path with '/'. */
  rel: string;
  /** Absolute real path of the entry itself (a link's own location). */
  real: string;
  /** A folder or a link (which may point to one): what a walk queues to open. */
  mayBeFolder: boolean;
  /** Set once known (at once for plain entries, when the target is read for links); null: it vanished. */
  described?: Described | null;
  /** Pending while a link is being followed. */
  describing?: Promise<Described | null>;
  /** A plain file's size once looked up (`startSizes`); null when the file vanished meanwhile. */
  size?: number | null;
  sizing?: Promise<void>;
  /** Set when a walk found the folder to be a virtual environment. */
  virtualenv?: boolean;
  /** Set when a walk opened the folder. */
  children?: TreeNode[];
}

/** Everything in this folder is ignored: what applies inside an ignored folder. */
export const IGNORE_EVERYTHING: FolderMatcher = { ignores: () => true };

export function childPath(folder: string, name: string): string {
  return folder === '/' ? '/' + name : folder + '/' + name;
}

const byName = (a: DirEntry, b: DirEntry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Lists the folder at real path `real`. */
export async function listTreeFolder(place: TreePlace, real: string): Promise<FolderListing> {
  const raw = await place.fs.readdir(real);
  const entries = place.excluded === undefined ? raw : raw.filter((e) => childPath(real, e.name) !== place.excluded);
  entries.sort(byName);
  return {
    entries,
    virtualenv: holdsVirtualenvMarker(entries),
    gitignore: entries.some((e) => e.name === GITIGNORE && e.type === 'file'),
  };
}

/** The ignore matcher for the children of a listed folder at root-relative `rel`. */
export function matcherFor(rules: IgnoreRules, rel: string, listing: FolderListing): Promise<FolderMatcher> {
  return rules.folder(rel, { gitignore: listing.gitignore });
}

/**
 * The folder's entries as nodes, in name order; links start being followed at once. `flagFiles: false` skips
 * the ignore verdict of files (never `ignored`), for walks that only need to know which folders to enter.
 */
export function folderNodes(
  place: TreePlace,
  real: string,
  rel: string,
  listing: FolderListing,
  matcher: FolderMatcher,
  flagFiles = true,
): TreeNode[] {
  const prefix = rel === '' ? '' : rel + '/';
  return listing.entries.map(({ name, type }): TreeNode => {
    const path = childPath(real, name);
    if (type === 'symlink') {
      const node: TreeNode = { name, rel: prefix + name, real: path, mayBeFolder: true };
      node.describing = describeLink(place, path).then((link): Described | null => {
        let described: Described | null = null;
        if (link) {
          const ignored = (flagFiles || link.type === 'dir') && matcher.ignores(name, link.type === 'dir');
          // A link to the folder holding it, or to any folder above that, would be a cycle.
          const enter = link.real !== undefined && !ignored && !isInside(link.real, real) ? link.real : undefined;
          described = { type: link.type, ignored, link: link.link, size: link.size, enter };
        }
        node.described = described;
        return described;
      });
      return node;
    }
    const isDir = type === 'dir';
    const ignored = (flagFiles || isDir) && matcher.ignores(name, isDir);
    const described: Described = { type: isDir ? 'dir' : 'file', ignored, enter: isDir && !ignored ? path : undefined };
    return { name, rel: prefix + name, real: path, mayBeFolder: isDir, described };
  });
}

/** A node's description, waiting for its link target when there is one. */
export function describedOf(node: TreeNode): Described | null | Promise<Described | null> {
  return node.described !== undefined ? node.described : node.describing!;
}

/**
 * A folder's nodes once their kinds are known, sorted as listed (folders first, then by name), cut to the first
 * `budget`; `hidden` counts the rest. Vanished entries are dropped before counting.
 */
export async function firstThatFit(nodes: readonly TreeNode[], budget: number): Promise<{ kept: TreeNode[]; hidden: number }> {
  await Promise.all(nodes.map(describedOf));
  const listed = nodes.filter((node) => node.described !== null).sort(compareNodes);
  const kept = listed.slice(0, budget);
  return { kept, hidden: listed.length - kept.length };
}

function compareNodes(a: TreeNode, b: TreeNode): number {
  return compareEntries({ type: a.described!.type, name: a.name }, { type: b.described!.type, name: b.name });
}

/** Starts the size lookups of the plain files among `nodes` (a link's size came with its target). */
export function startSizes(place: TreePlace, nodes: readonly TreeNode[]): void {
  for (const node of nodes) {
    if (node.mayBeFolder) continue; // plain folders have no size; links got theirs with the target
    node.sizing = place.fs.stat(node.real).then(
      (stat) => {
        node.size = stat.size;
      },
      (error: unknown) => {
        if (!isFsError(error)) throw error;
        node.size = isFsError(error, 'not-found') ? null : undefined;
      },
    );
  }
}

/** Waits for every pending detail below `nodes` (link targets and sizes, opened folders included). */
export async function settle(nodes: readonly TreeNode[]): Promise<void> {
  const pending: Promise<unknown>[] = [];
  const visit = (list: readonly TreeNode[]) => {
    for (const node of list) {
      if (node.describing) pending.push(node.describing);
      if (node.sizing) pending.push(node.sizing);
      if (node.children) visit(node.children);
    }
  };
  visit(nodes);
  await Promise.all(pending);
}

/** Renders settled nodes (call `settle` first), each folder's entries sorted; vanished entries are dropped. */
export function toEntries(nodes: readonly TreeNode[]): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (const node of nodes) {
    const described = node.described;
    if (!described) continue;
    const size = described.link ? described.size : node.size;
    if (size === null) continue;
    const entry: TreeEntry = { name: node.name, path: node.rel, type: described.type };
    if (size !== undefined && described.type === 'file') entry.size = size;
    if (described.ignored || node.virtualenv) entry.ignored = true;
    if (described.link) entry.link = described.link;
    if (node.children) entry.children = toEntries(node.children);
    entries.push(entry);
  }
  return entries.sort(compareEntries);
}
