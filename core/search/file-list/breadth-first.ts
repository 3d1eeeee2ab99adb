/**
 * ori's walk order and entry budget (handlers/api/file-search.ts `walkFiles`), answered from the list's
 * tree instead of the disk: breadth-first, each folder's entries in code-unit order of their names, every
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
import type { FolderNode } from './folder-tree.ts';

export function walkTreeBreadthFirst(root: FolderNode, visit: FolderVisitor, options: BreadthFirstOptions): WalkSummary {
  const folders: FolderNode[] = [root];
  let seen = 0;
  for (let i = 0; i < folders.length; i++) {
    const folder = folders[i]!;
    const entries = folder.entries;
    if (entries === null) continue;
    const take = Math.min(entries.length, options.maxEntries - seen);
    seen += take;
    const files: string[] = [];
    for (let j = 0; j < take; j++) {
      const entry = entries[j]!;
      if (entry.kind === 'file') files.push(entry.name);
      else if (entry.kind === 'link') {
        if (entry.target === 'inside' || (entry.target === 'outside' && options.linksLeavingRoot)) files.push(entry.name);
      } else if (entry.kind === 'folder' && entry.folder) folders.push(entry.folder);
    }
    if (visit({ path: folder.path, relPath: folder.relPath }, files) === true) return { entriesSeen: seen, truncated: false };
    if (seen >= options.maxEntries) return { entriesSeen: seen, truncated: true };
  }
  return { entriesSeen: seen, truncated: false };
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
