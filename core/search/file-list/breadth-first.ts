/**
 * The `@` file walk's order and entry budget (core/walk/budgeted-breadth-first.ts, shared with the disk walk
 * core/file-search/find-files.ts `walkFiles`), answered from the list's tree instead of the disk: breadth-first, each folder's entries in code-unit order of their names, every
 * entry a folder holds counted against `maxEntries` (files, folders, links, sockets, folders not entered),
 * `.git` and `node_modules` never entered, an unreadable folder skipped, links to regular files listed under
 * their own path (only those whose real target is inside the root, unless `linksLeavingRoot`).
 *
 * Where it cannot match the disk walk: folders the list keeps as names only (./search-ignored.ts
 * ON_DEMAND_FOLDERS: `bower_components`, `jspm_packages`, `.pnpm-store`, `__pypackages__`, `.hg`, `.svn`) are
 * not entered, where `walkFiles` enters every folder but `.git` and `node_modules`; and a link's target is as
 * of the last change the list heard about it or its target path.
 */
import type { BreadthFirstOptions, FolderVisitor, WalkSummary } from './file-list.ts';
import { budgetedBreadthFirst, runWalk, type Placed } from '../../walk/budgeted-breadth-first.ts';
import type { FolderNode, TreeEntry } from './folder-tree.ts';

export function walkTreeBreadthFirst(root: FolderNode, visit: FolderVisitor, options: BreadthFirstOptions): WalkSummary {
  const place = (entry: TreeEntry): Placed<FolderNode> => {
    if (entry.kind === 'file') return entry.name;
    if (entry.kind === 'link') {
      return entry.target === 'inside' || (entry.target === 'outside' && options.linksLeavingRoot) ? entry.name : undefined;
    }
    return entry.kind === 'folder' ? (entry.folder ?? undefined) : undefined;
  };
  return runWalk(budgetedBreadthFirst(root, options.maxEntries, place, visit), (folder) => folder.entries);
}

/**
 * Whether the tree holds a folder ori's walk would enter but the list keeps as a name only (an on-demand
 * folder other than `node_modules`: `bower_components`, `.hg`, …). Then the list cannot answer that walk, and
 * `/api/files/search` walks the disk instead.
 */
export function holdsFoldersSeed000Enters(root: FolderNode): boolean {
  const folders: FolderNode[] = [root];
  for (let i = 0; i < folders.length; i++) {
    for (const entry of folders[i]!.entries ?? []) {
      if (entry.kind !== 'folder') continue;
      if (entry.onDemand && entry.name !== 'node_modules') return true;
      if (entry.folder) folders.push(entry.folder);
    }
  }
  return false;
}
