import type { HttpAnswer } from '../../http-client.ts';

/** One entry as `GET /workspace/tree` and `GET /workspace/children` answer it (docs/intentic.md#tree). */
export type TreeEntry = HttpAnswer<'GET /workspace/children'>['entries'][number];

/** A file or folder of the tree, with what the view keeps of it. The root is `.` at depth 0. */
export interface TreeNode {
  path: string;
  name: string;
  type: 'file' | 'dir';
  size: number | undefined;
  ignored: boolean;
  link: TreeEntry['link'];
  parent: TreeNode | undefined;
  /** 1 for the root's entries (aria-level). */
  depth: number;
  /** undefined: not listed yet (opened lazily with `GET /workspace/children`). */
  children: TreeNode[] | undefined;
  /** Entries the daemon left out (over its entry cap). */
  hidden: number;
  expanded: boolean;
  /** The view's elements, made when the node is first shown. */
  item?: HTMLLIElement;
  group?: HTMLUListElement;
}

export function rootNode(): TreeNode {
  return { path: '.', name: '.', type: 'dir', size: undefined, ignored: false, link: undefined, parent: undefined, depth: 0, children: undefined, hidden: 0, expanded: true };
}

/**
 * Puts a fresh listing into `node`, keeping the nodes (their open state and listed children) of entries still
 * there with the same kind. Answers the nodes that left, so the view can forget them. Entries that carry
 * `children` (the first walk) are listed right away, closed.
 */
export function mergeListing(node: TreeNode, entries: readonly TreeEntry[], hidden: number): TreeNode[] {
  const previous = new Map((node.children ?? []).map((child) => [child.name, child]));
  const next: TreeNode[] = [];
  for (const entry of entries) {
    const kept = previous.get(entry.name);
    let child: TreeNode;
    if (kept && kept.type === entry.type && kept.path === entry.path) {
      previous.delete(entry.name);
      child = kept;
      child.size = entry.size;
      child.ignored = entry.ignored === true;
      child.link = entry.link;
    } else {
      child = {
        path: entry.path,
        name: entry.name,
        type: entry.type,
        size: entry.size,
        ignored: entry.ignored === true,
        link: entry.link,
        parent: node,
        depth: node.depth + 1,
        children: undefined,
        hidden: 0,
        expanded: false,
      };
    }
    if (entry.children) for (const gone of mergeListing(child, entry.children, 0)) previous.set(`\0${gone.path}`, gone);
    next.push(child);
  }
  node.children = next;
  node.hidden = hidden;
  return [...previous.values()];
}

/** `node` and everything listed under it, depth first. */
export function* descendants(node: TreeNode): Generator<TreeNode> {
  yield node;
  for (const child of node.children ?? []) yield* descendants(child);
}
