/**
 * POSIX path resolution for the backends that keep their own tree (memory-file-system.ts, durable-object-file-system.ts):
 * the path walked name by name, every symlink on the way followed (the last one only when asked), a link's text
 * resolved against the folder it sits in, `..` taken physically (after the link before it), at most 40 links
 * (Linux's MAXSYMLINKS; `loop` past it). Each backend says how to find a folder's child and what an entry is;
 * the walk, and so every answer it leads to, is the same for both.
 */
import { checkPath } from './arguments.ts';
import type { ConfinedFolders } from './confined-folders.ts';
import { FsError } from './fs-error.ts';
import { normalize, segments } from './posix-path.ts';

const MAX_SYMLINK_HOPS = 40;

/** A backend's tree as the walk sees it: folders `D`, entries `N`. */
export interface PathTree<D, N> {
  readonly root: D;
  /** The entry `name` in `dir`, or undefined; may refuse (`permission-denied` where search bits are enforced). */
  child(dir: D, name: string, path: string): N | undefined;
  /** A symlink's text; undefined for anything else. */
  linkTarget(entry: N): string | undefined;
  /** The entry as a folder to walk into; undefined for anything else. */
  asFolder(entry: N): D | undefined;
}

export type Resolved<D, N> =
  /** The last name, looked up in the last of `folders` (undefined `entry`: nothing there). `names` are the folder's. */
  | { kind: 'entry'; folders: D[]; names: string[]; name: string; entry: N | undefined }
  /** The path ended on a folder reached through "/", ".." or a link's text: the last of `folders`, at `names`. */
  | { kind: 'folder'; folders: D[]; names: string[] };

/**
 * `confined`: a path lexically inside a confined folder must end inside it (FileSystem.confine), else
 * `permission-denied` — where the walk ended is the real path: the folders' names, and the last name.
 */
export function resolvePath<D, N>(path: string, followLast: boolean, tree: PathTree<D, N>, confined?: ConfinedFolders): Resolved<D, N> {
  const found = walk(path, followLast, tree);
  if (confined === undefined || confined.empty) return found;
  const folder = confined.folderOf(normalize(path));
  if (folder !== undefined) {
    const names = found.kind === 'entry' ? [...found.names, found.name] : found.names;
    confined.check(path, `/${names.join('/')}`, folder);
  }
  return found;
}

function walk<D, N>(path: string, followLast: boolean, tree: PathTree<D, N>): Resolved<D, N> {
  checkPath(path);
  const queue = segments(path);
  const folders: D[] = [tree.root];
  const names: string[] = [];
  let hops = 0;
  while (queue.length > 0) {
    const name = queue.shift()!;
    if (name === '.') continue;
    if (name === '..') {
      if (folders.length > 1) {
        folders.pop();
        names.pop();
      }
      continue;
    }
    const entry = tree.child(folders[folders.length - 1]!, name, path);
    const last = queue.length === 0;
    const target = entry === undefined ? undefined : tree.linkTarget(entry);
    if (target !== undefined && (!last || followLast)) {
      if (++hops > MAX_SYMLINK_HOPS) throw new FsError('loop', path);
      if (target.startsWith('/')) {
        folders.length = 1;
        names.length = 0;
      }
      queue.unshift(...segments(target));
      continue;
    }
    if (last) return { kind: 'entry', folders, names, name, entry };
    if (entry === undefined) throw new FsError('not-found', path);
    const folder = tree.asFolder(entry);
    if (folder === undefined) throw new FsError('not-directory', path);
    folders.push(folder);
    names.push(name);
  }
  return { kind: 'folder', folders, names };
}
