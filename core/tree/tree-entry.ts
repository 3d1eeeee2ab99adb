/**
 * Intentic's tree entry (docs/intentic.md#tree, `tree` / `children`), and its order. Keys appear in this order on the wire;
 * optional keys are absent rather than false or null.
 */
export interface TreeLink {
  /** What the link says, verbatim. */
  to: string;
  /** Absent for a link that resolves inside the workspace. */
  state?: 'broken' | 'outside';
}

export interface TreeEntry {
  name: string;
  /** Root-relative with '/'. */
  path: string;
  type: 'file' | 'dir';
  /** Bytes; files only. */
  size?: number;
  /** Tooling ignores it (./core/ignore): listed, and a folder is not entered. */
  ignored?: true;
  link?: TreeLink;
  /** A folder's entries when the walk opened it; absent when it is left closed. */
  children?: TreeEntry[];
}

export interface TreeListing {
  entries: TreeEntry[];
  /** Entries that did not fit the budget. */
  hidden: number;
}

/** Folders before files, then by name in code-unit order (docs/intentic.md#tree). */
export function compareEntries(a: Pick<TreeEntry, 'type' | 'name'>, b: Pick<TreeEntry, 'type' | 'name'>): number {
  if (a.type !== b.type) return a.type === 'dir' ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
