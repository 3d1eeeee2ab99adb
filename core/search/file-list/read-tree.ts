/**
 * Reading folders into the file list's tree (./folder-tree.ts): one folder's entries with their kinds, sizes,
 * versions and `ignored` flags, and whole subtrees with bounded concurrency (the first walk of the kernel tree
 * is 78 579 files: thousands of folders read and files stat'ed at once would queue on the host's I/O threads
 * and hold a pending promise each, so at most FOLDERS_AT_ONCE folders are read, each stat'ing STATS_PER_FOLDER
 * files at a time).
 */
import type { DirEntry, FileStat, FileSystem } from '../../../adapters/fs/file-system.ts';
import { isFsError } from '../../../adapters/fs/fs-error.ts';
import { dirname, isInside, join, normalize } from '../../../adapters/fs/posix-path.ts';
import type { FolderMatcher, IgnoreRules } from '../../ignore/ignore-rules.ts';
import { holdsVirtualenvMarker } from '../../ignore/package-stores.ts';
import { mapLimited } from '../../listing/map-limited.ts';
import { childRelPath, sortEntries, type FolderNode, type LinkTarget, type TreeEntry } from './folder-tree.ts';
import type { MakeListedFile } from './listed-file.ts';
import { NEVER_LISTED, ON_DEMAND_FOLDERS, SEARCH_IGNORED_FOLDERS } from './search-ignored.ts';

const FOLDERS_AT_ONCE = 8;
const STATS_PER_FOLDER = 8;

export interface TreeContext {
  readonly fs: FileSystem;
  /** The root's real path, and that with a trailing '/' (the prefix of every absolute path). */
  readonly root: string;
  readonly rootSlash: string;
  /** Absolute real folders never entered. */
  readonly exclude: ReadonlySet<string>;
  readonly rules: IgnoreRules;
  /** Makes the list's ListedFile objects (./listed-file.ts). */
  readonly makeFile: MakeListedFile;
  /** Told of every link and folder as it is read (the list's indexes). */
  onLink(relPath: string, entry: Extract<TreeEntry, { kind: 'link' }>): void;
  onFolder(node: FolderNode): void;
  /** True once the list is closed: a walk still running stops reading (shutdown never waits for a whole tree). */
  stopped?(): boolean;
  /** While this returns a promise, a whole-tree walk reads no more folders until it settles (./file-list.ts). */
  giveWay?(): Promise<void> | undefined;
}

export function newFolderNode(ctx: Pick<TreeContext, 'root' | 'rootSlash'>, relPath: string, ignored: boolean): FolderNode {
  return { relPath, path: relPath === '' ? ctx.root : ctx.rootSlash + relPath, entries: null, ignored };
}

/** Reads the subtree at `node` (a fresh node), filling every folder below it. */
export async function readSubtree(ctx: TreeContext, node: FolderNode): Promise<void> {
  const queue: (FolderNode | undefined)[] = [node];
  let next = 0;
  let active = 0;
  let waiting = false;
  await new Promise<void>((resolve, reject) => {
    const pump = () => {
      if (ctx.stopped?.()) next = queue.length; // what is queued is dropped; folders being read finish
      const turn = next < queue.length ? ctx.giveWay?.() : undefined;
      if (turn !== undefined) {
        if (!waiting) {
          waiting = true;
          void turn.then(() => {
            waiting = false;
            pump();
          });
        }
        return;
      }
      while (active < FOLDERS_AT_ONCE && next < queue.length) {
        const folder = queue[next]!;
        queue[next++] = undefined;
        active++;
        readFolder(ctx, folder).then((children) => {
          active--;
          for (const child of children) queue.push(child);
          if (active === 0 && next >= queue.length) resolve();
          else pump();
        }, reject);
      }
      if (active === 0 && next >= queue.length) resolve();
    };
    pump();
  });
}

/**
 * Reads one folder's entries into `node` (`entries` null if it cannot be read) and returns the child folders
 * still to read. `node.ignored` says whether the folder itself is ignored; it becomes true here too when the
 * folder turns out to be a virtualenv.
 */
export async function readFolder(ctx: TreeContext, node: FolderNode): Promise<FolderNode[]> {
  let raw: DirEntry[];
  try {
    raw = await ctx.fs.readdir(node.path);
  } catch (error) {
    if (!isFsError(error)) throw error;
    node.entries = null;
    ctx.onFolder(node);
    return [];
  }
  node.ignored ||= holdsVirtualenvMarker(raw);
  const matcher = await matcherFor(ctx, node, raw);
  const made = await mapLimited(raw, STATS_PER_FOLDER, (entry) =>
    makeEntry(ctx, node, matcher, entry.name, entry.type),
  );
  const entries: TreeEntry[] = [];
  const children: FolderNode[] = [];
  for (const result of made) {
    if (!result) continue;
    entries.push(result.entry);
    if (result.child) children.push(result.child);
  }
  node.entries = sortEntries(entries);
  ctx.onFolder(node);
  return children;
}

/** The ignore matcher for the children of `node`, or undefined when everything in it is ignored anyway. */
export async function matcherFor(
  ctx: TreeContext,
  node: FolderNode,
  raw?: readonly { name: string; type: string }[],
): Promise<FolderMatcher | undefined> {
  if (node.ignored) return undefined;
  const hint = raw && { gitignore: raw.some((entry) => entry.name === '.gitignore' && entry.type === 'file') };
  try {
    return await ctx.rules.folder(node.relPath, hint);
  } catch {
    return undefined; // rules that cannot be read hide nothing
  }
}

/** Whether a child of `parent` is ignored by search's rules (`parent` itself not ignored: see `matcherFor`). */
export function childIgnored(parent: FolderNode, matcher: FolderMatcher | undefined, name: string, isDir: boolean): boolean {
  if (parent.ignored) return true;
  if (isDir && SEARCH_IGNORED_FOLDERS.has(name)) return true;
  return matcher?.ignores(name, isDir) ?? false;
}

export interface MadeEntry {
  entry: TreeEntry;
  /** A folder to read (fresh, not yet filled). */
  child?: FolderNode;
}

/**
 * The entry for the child `name` of `parent`, of the kind `type` (a DirEntry type, or what an lstat said);
 * undefined when it vanished before it could be stat'ed.
 */
export async function makeEntry(
  ctx: TreeContext,
  parent: FolderNode,
  matcher: FolderMatcher | undefined,
  name: string,
  type: DirEntry['type'],
  knownStat?: FileStat,
): Promise<MadeEntry | undefined> {
  const relPath = childRelPath(parent.relPath, name);
  const path = ctx.rootSlash + relPath;
  if (type === 'file') {
    if (name === NEVER_LISTED) return { entry: { name, kind: 'file', file: undefined } };
    let stat = knownStat;
    try {
      stat ??= await ctx.fs.lstat(path);
    } catch (error) {
      if (isFsError(error)) return undefined;
      throw error;
    }
    if (stat.type !== 'file') return undefined; // replaced meanwhile: its own change will come
    const file = ctx.makeFile(relPath, stat.size, stat.version, childIgnored(parent, matcher, name, false));
    return { entry: { name, kind: 'file', file } };
  }
  if (type === 'dir') return folderEntry(ctx, parent, matcher, name);
  if (type === 'symlink') {
    const entry: Extract<TreeEntry, { kind: 'link' }> = { name, kind: 'link', target: 'none', resolved: undefined };
    await resolveLink(ctx, path, entry);
    ctx.onLink(relPath, entry);
    return { entry };
  }
  return { entry: { name, kind: 'other' } };
}

/**
 * The entry for the child folder `name` of `parent`: a name only (`.git`, a package store walked on demand, an
 * excluded folder), else a fresh node to read, ignored or not by search's rules.
 */
export function folderEntry(
  ctx: Pick<TreeContext, 'root' | 'rootSlash' | 'exclude'>,
  parent: FolderNode,
  matcher: FolderMatcher | undefined,
  name: string,
): MadeEntry {
  const relPath = childRelPath(parent.relPath, name);
  const onDemand = ON_DEMAND_FOLDERS.has(name);
  if (name === NEVER_LISTED || onDemand || ctx.exclude.has(ctx.rootSlash + relPath)) {
    return { entry: { name, kind: 'folder', folder: undefined, onDemand } };
  }
  const child = newFolderNode(ctx, relPath, childIgnored(parent, matcher, name, true));
  return { entry: { name, kind: 'folder', folder: child, onDemand: false }, child };
}

/** Fills in what the link at `path` points at now (ori lists links to regular files). */
export async function resolveLink(
  ctx: Pick<TreeContext, 'fs' | 'root'>,
  path: string,
  entry: Extract<TreeEntry, { kind: 'link' }>,
): Promise<void> {
  let target: LinkTarget = 'none';
  let resolved: string | undefined;
  try {
    resolved = await ctx.fs.realpath(path);
    if ((await ctx.fs.stat(path)).type === 'file') target = isInside(ctx.root, resolved) ? 'inside' : 'outside';
  } catch (error) {
    if (!isFsError(error)) throw error;
    resolved ??= await danglingTarget(ctx.fs, path);
  }
  entry.target = target;
  entry.resolved = resolved;
}

/** Where a dangling link would point (lexically), so a file appearing there can revive it. */
async function danglingTarget(fs: FileSystem, path: string): Promise<string | undefined> {
  try {
    const text = await fs.readlink(path);
    return text.startsWith('/') ? normalize(text) : join(dirname(path), text);
  } catch (error) {
    if (isFsError(error)) return undefined;
    throw error;
  }
}
