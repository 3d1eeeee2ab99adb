/**
 * The live file list (the API is ./file-list.ts): a first walk of the tree, then the change feed applied to it.
 *
 * How changes are applied:
 * - The feed is subscribed before the first walk and its `ready` awaited, so nothing that happens during the
 *   walk is missed; paths that change meanwhile are applied after it (each is re-stat'ed, so order is moot).
 * - Frames are gathered into a set of pending paths; one batch at a time takes the whole set, applies it and
 *   tells the listeners once (a burst of changes costs one `onChange`, not one per path).
 * - A path is re-stat'ed and its entry made to agree: a file's size, version and flag; a folder that appears
 *   (created, moved in, or the parent of a file written with `mkdirs`) is walked whole; a folder that goes is
 *   dropped whole; a folder reported present is re-listed and the difference applied (a watcher may report
 *   only the folder of a move).
 * - A `.gitignore` (or a virtualenv's `pyvenv.cfg`, or `.git/info/exclude`) that changes makes the ignore rules
 *   of its folder stale: they are forgotten and the `ignored` flags below that folder recomputed.
 * - A link is re-resolved when its target path changes (ori lists links to files).
 * - `resync` (the feed lost track) re-walks everything and applies the difference; a difference of more than
 *   RESET_AFTER files is told as one `reset` (listeners re-read `files()`).
 */
import type { FileStat, FileSystem } from '../../../adapters/fs/file-system.ts';
import { isFsError } from '../../../adapters/fs/fs-error.ts';
import { isInside, relativeTo } from '../../../adapters/fs/posix-path.ts';
import type { ChangeFeed } from '../../changes/change-feed.ts';
import { createIgnoreRules, staleRulesFolder } from '../../ignore/ignore-rules.ts';
import { holdsFoldersSeed000Enters, walkTreeBreadthFirst } from './breadth-first.ts';
import type { FileList, FileListEvent } from './file-list.ts';
import { childRelPath, entryNamed, fileAt, findEntry, putEntry, subtreeFolders, type FolderNode, type TreeEntry } from './folder-tree.ts';
import { listedFileMaker, type ListedFile } from './listed-file.ts';
import {
  childIgnored,
  makeEntry,
  matcherFor,
  newFolderNode,
  readFolder,
  readSubtree,
  resolveLink,
  type TreeContext,
} from './read-tree.ts';
import { NEVER_LISTED } from './search-ignored.ts';
import { storeFolders, walkStoreFiles } from './store-files.ts';

/** Distinct pending paths the list's subscription holds before the feed sends `resync` (a full re-walk). */
const MAX_QUEUE = 10_000;
/** A resync that changes more files than this is told as one `reset`. */
const RESET_AFTER = 10_000;

export interface FileListOptions {
  fs: FileSystem;
  /** The workspace root, a real path. */
  root: string;
  changes: ChangeFeed;
  /** Absolute real folders never listed (the agents' copies). */
  exclude?: readonly string[];
  /**
   * While this returns a promise, a walk of the whole tree (the first one, a resync) reads no more folders until
   * it settles: a search that walks the disk itself meanwhile gets the I/O threads and the cores (the list's walk
   * stats every file; on 2 cores it took most of the time of a query asked during it).
   */
  giveWay?: () => Promise<void> | undefined;
}

type LinkEntry = Extract<TreeEntry, { kind: 'link' }>;

/** The tree and its indexes. Files have none: `fileAt` finds one down the tree (a map of 78 579 paths was 3.5 MiB). */
interface TreeState {
  root: FolderNode;
  folders: Map<string, FolderNode>;
  /** Link entries by root-relative path, and the links waiting on each resolved target. */
  links: Map<string, LinkEntry>;
  linksByTarget: Map<string, Set<string>>;
}

export function createFileList(options: FileListOptions): FileList {
  const { fs, root, changes } = options;
  const rootSlash = root === '/' ? '/' : root + '/';
  const makeFile = listedFileMaker(rootSlash);
  const exclude = new Set(options.exclude ?? []);
  const rules = createIgnoreRules(fs, root, { longLived: true });
  const listeners = new Set<(events: readonly FileListEvent[]) => void>();
  const subscription = changes.subscribe({ under: root, maxQueue: MAX_QUEUE });

  let state = emptyState();
  let walked = false;
  let closed = false;
  let generation = 0;
  let cached: { generation: number; all?: readonly ListedFile[]; searched?: readonly ListedFile[] } = { generation: -1 };
  let covers: { generation: number; root: FolderNode | undefined; value: boolean } = { generation: -1, root: undefined, value: false };

  const pending = new Set<string>();
  let resyncPending = false;
  let processing: Promise<void> | undefined;
  let feedReady!: () => void;
  const feedIsReady = new Promise<void>((resolve) => (feedReady = resolve));

  function emptyState(): TreeState {
    return {
      root: { relPath: '', path: root, entries: null, ignored: false },
      folders: new Map(),
      links: new Map(),
      linksByTarget: new Map(),
    };
  }

  /** A context whose indexes are those of `into` (a resync fills a fresh state). */
  function contextFor(into: TreeState, wholeTree = false): TreeContext {
    return {
      ...(wholeTree && options.giveWay !== undefined ? { giveWay: options.giveWay } : {}),
      fs,
      root,
      rootSlash,
      exclude,
      rules,
      makeFile,
      onLink: (relPath, entry) => {
        into.links.set(relPath, entry);
        indexLink(into, relPath, entry);
      },
      onFolder: (node) => void into.folders.set(node.relPath, node),
      stopped: () => closed,
    };
  }

  async function walkAll(): Promise<TreeState> {
    const fresh = emptyState();
    await readSubtree(contextFor(fresh, true), fresh.root);
    return fresh;
  }

  // ---- the feed ------------------------------------------------------------------------------------------

  void (async () => {
    try {
      for await (const frame of subscription) {
        if (frame.kind === 'ready') feedReady();
        else if (frame.kind === 'resync') resyncPending = true;
        else pending.add(frame.change.absolutePath);
        if (frame.kind !== 'ready') schedule();
      }
    } finally {
      feedReady(); // a feed closed before it was ready must not hold the first walk forever
    }
  })();

  const ready: Promise<void> = (async () => {
    await feedIsReady;
    try {
      if (!closed) state = await walkAll();
    } catch (error) {
      console.error('file list: the first walk failed:', error);
    }
    walked = true;
    if (pending.size > 0 || resyncPending) schedule();
  })();

  function schedule(): void {
    if (processing || !walked || closed) return;
    processing = (async () => {
      // Let a burst that is still arriving join this batch.
      await new Promise((resolve) => setTimeout(resolve, 0));
      while (!closed && (pending.size > 0 || resyncPending)) {
        try {
          if (resyncPending) {
            resyncPending = false;
            pending.clear();
            await resync();
          } else {
            const batch = [...pending];
            pending.clear();
            await applyBatch(batch);
          }
        } catch (error) {
          console.error('file list: a change could not be applied:', error);
        }
      }
    })().finally(() => {
      processing = undefined;
      if (!closed && (pending.size > 0 || resyncPending)) schedule();
    });
  }

  // ---- applying changes ----------------------------------------------------------------------------------

  /** What one batch changed, last word per path. */
  class Changes {
    readonly events = new Map<string, FileListEvent>();
    reset = false;
    upsert(file: ListedFile) {
      this.events.set(file.path, { kind: 'upsert', file });
    }
    remove(path: string) {
      this.events.set(path, { kind: 'remove', path });
    }
  }

  async function applyBatch(paths: readonly string[]): Promise<void> {
    const out = new Changes();
    const ctx = contextFor(state);
    const staleRules = new Set<string>();
    for (const path of paths) {
      if (closed) return;
      if (!isInside(root, path)) continue;
      const relPath = relativeTo(root, path);
      const rulesFolder = relPath === '' ? undefined : staleRulesFolder(relPath);
      if (rulesFolder !== undefined) {
        rules.forget(rulesFolder);
        staleRules.add(rulesFolder === '.git/info' ? '' : rulesFolder);
      }
      await applyPath(ctx, relPath, out);
    }
    for (const folder of outermost(staleRules)) await recomputeIgnored(ctx, folder, out);
    await refreshLinks(ctx, out);
    publish(out);
  }

  /** Brings the entry at `relPath` (and what it stands for) in line with the disk. */
  async function applyPath(ctx: TreeContext, relPath: string, out: Changes): Promise<void> {
    if (relPath === '') return refreshRoot(ctx, out);
    // Down the known folders to the first segment that is new or not a folder: that entry is what changed.
    let parent = state.root;
    let at = 0;
    for (;;) {
      if (!parent.entries) return; // an unreadable folder's insides are not listed
      const slash = relPath.indexOf('/', at);
      const name = slash < 0 ? relPath.slice(at) : relPath.slice(at, slash);
      if (name === NEVER_LISTED) return;
      const entry = entryNamed(parent, name);
      if (slash < 0 || !entry || entry.kind !== 'folder') return refreshEntry(ctx, parent, name, out);
      if (!entry.folder) return; // .git, an on-demand store, an excluded folder
      parent = entry.folder;
      at = slash + 1;
    }
  }

  async function refreshRoot(ctx: TreeContext, out: Changes): Promise<void> {
    try {
      const stat = await fs.stat(root);
      if (stat.type === 'dir') return relist(ctx, state.root, out);
    } catch (error) {
      if (!isFsError(error)) throw error;
    }
    for (const file of sortedFiles(state.root, true)) out.remove(file.path);
    state = emptyState();
  }

  /** Makes `parent`'s entry `name` agree with what is there now. */
  async function refreshEntry(ctx: TreeContext, parent: FolderNode, name: string, out: Changes): Promise<void> {
    const relPath = childRelPath(parent.relPath, name);
    let stat: FileStat | undefined;
    try {
      stat = await fs.lstat(rootSlash + relPath);
    } catch (error) {
      if (!isFsError(error)) throw error;
    }
    const existing = entryNamed(parent, name);
    if (!stat) {
      if (existing) dropEntry(parent, existing, out);
      return;
    }
    if (existing?.kind === 'folder' && stat.type === 'dir') {
      if (existing.folder) await relist(ctx, existing.folder, out);
      return;
    }
    if (existing?.kind === 'file' && stat.type === 'file' && existing.file) {
      const file = existing.file;
      if (file.size === stat.size && file.version === stat.version) return;
      existing.file = makeFile(file.path, stat.size, stat.version, file.ignored);
      out.upsert(existing.file);
      return;
    }
    if (existing) dropEntry(parent, existing, out);
    const matcher = await matcherFor(ctx, parent);
    const made = await makeEntry(ctx, parent, matcher, name, stat.type, stat);
    if (!made || !parent.entries) return;
    putEntry(parent.entries, made.entry);
    if (made.child) await readSubtree(ctx, made.child);
    if (made.entry.kind === 'file' && made.entry.file) out.upsert(made.entry.file);
    if (made.entry.kind === 'folder' && made.entry.folder) {
      for (const folder of subtreeFolders(made.entry.folder)) {
        for (const entry of folder.entries ?? []) if (entry.kind === 'file' && entry.file) out.upsert(entry.file);
      }
    }
  }

  /** Re-reads a known folder's names and applies the difference (new, gone, or of another kind). */
  async function relist(ctx: TreeContext, node: FolderNode, out: Changes): Promise<void> {
    let names: Map<string, string>;
    try {
      names = new Map((await fs.readdir(node.path)).map((entry) => [entry.name, entry.type]));
    } catch (error) {
      if (!isFsError(error)) throw error;
      // Unreadable now: its insides are no longer listed.
      for (const entry of node.entries ?? []) dropEntry(node, entry, out);
      node.entries = null;
      return;
    }
    if (!node.entries) {
      // Readable again: read it as new.
      const children = await readFolder(ctx, node);
      for (const child of children) await readSubtree(ctx, child);
      for (const folder of subtreeFolders(node)) {
        for (const entry of folder.entries ?? []) if (entry.kind === 'file' && entry.file) out.upsert(entry.file);
      }
      return;
    }
    for (const entry of [...node.entries]) {
      if (!names.has(entry.name)) dropEntry(node, entry, out);
    }
    for (const [name, type] of names) {
      const entry = entryNamed(node, name);
      if (!entry || kindOf(type) !== entry.kind) await refreshEntry(ctx, node, name, out);
    }
  }

  /** Removes an entry and, for a folder, everything the list knew below it. */
  function dropEntry(parent: FolderNode, entry: TreeEntry, out: Changes): void {
    if (parent.entries) {
      const at = findEntry(parent.entries, entry.name);
      if (at >= 0 && parent.entries[at] === entry) parent.entries.splice(at, 1);
    }
    const relPath = childRelPath(parent.relPath, entry.name);
    if (entry.kind === 'file' && entry.file) {
      out.remove(relPath);
    } else if (entry.kind === 'link') {
      state.links.delete(relPath);
    } else if (entry.kind === 'folder' && entry.folder) {
      for (const folder of subtreeFolders(entry.folder)) {
        state.folders.delete(folder.relPath);
        for (const child of folder.entries ?? []) {
          const childPath = childRelPath(folder.relPath, child.name);
          if (child.kind === 'file' && child.file) {
            out.remove(childPath);
          } else if (child.kind === 'link') state.links.delete(childPath);
        }
      }
    }
  }

  /** Recomputes `ignored` below `relDir` after its rules changed; files whose flag flips are upserted. */
  async function recomputeIgnored(ctx: TreeContext, relDir: string, out: Changes): Promise<void> {
    const node = state.folders.get(relDir);
    if (!node) return;
    let ignored = false;
    if (relDir !== '') {
      const slash = relDir.lastIndexOf('/');
      const parent = state.folders.get(slash < 0 ? '' : relDir.slice(0, slash));
      if (!parent) return;
      ignored = childIgnored(parent, await matcherFor(ctx, parent), relDir.slice(slash + 1), true);
    }
    await recomputeFolder(ctx, node, ignored, out);
  }

  async function recomputeFolder(ctx: TreeContext, node: FolderNode, ignored: boolean, out: Changes): Promise<void> {
    const marker = entryNamed(node, 'pyvenv.cfg');
    node.ignored = ignored || marker?.kind === 'file';
    if (!node.entries) return;
    const matcher = await matcherFor(ctx, node);
    for (const entry of node.entries) {
      if (entry.kind === 'file' && entry.file) {
        const flag = childIgnored(node, matcher, entry.name, false);
        if (flag !== entry.file.ignored) {
          entry.file = makeFile(entry.file.path, entry.file.size, entry.file.version, flag);
          out.upsert(entry.file);
        }
      } else if (entry.kind === 'folder' && entry.folder) {
        await recomputeFolder(ctx, entry.folder, childIgnored(node, matcher, entry.name, true), out);
      }
    }
  }

  /** Re-resolves the links whose target is a path this batch touched. */
  async function refreshLinks(ctx: TreeContext, out: Changes): Promise<void> {
    const touched = new Set<string>();
    for (const path of out.events.keys()) {
      for (const link of state.linksByTarget.get(rootSlash + path) ?? []) touched.add(link);
    }
    for (const relPath of touched) {
      const entry = state.links.get(relPath);
      if (!entry) continue;
      unindexLink(state, relPath, entry);
      await resolveLink(ctx, rootSlash + relPath, entry);
      indexLink(state, relPath, entry);
    }
    // A link whose entry went away leaves its index slot behind; drop such slots as they are met.
    for (const path of out.events.keys()) {
      const links = state.linksByTarget.get(rootSlash + path);
      if (!links) continue;
      for (const link of links) if (!state.links.has(link)) links.delete(link);
      if (links.size === 0) state.linksByTarget.delete(rootSlash + path);
    }
  }

  async function resync(): Promise<void> {
    const before = state.root;
    const fresh = await walkAll();
    if (closed) return;
    state = fresh;
    const out = new Changes();
    for (const file of sortedFiles(fresh.root, true)) {
      const old = fileAt(before, file.path);
      if (!old || old.size !== file.size || old.version !== file.version || old.ignored !== file.ignored) out.upsert(file);
    }
    for (const file of sortedFiles(before, true)) if (!fileAt(fresh.root, file.path)) out.remove(file.path);
    if (out.events.size > RESET_AFTER) {
      out.events.clear();
      out.reset = true;
    }
    publish(out, true);
  }

  function publish(out: Changes, structureChanged = false): void {
    if (out.events.size === 0 && !out.reset && !structureChanged) return;
    generation++;
    const events: FileListEvent[] = out.reset ? [{ kind: 'reset' }] : [...out.events.values()];
    if (events.length === 0) return;
    for (const listener of [...listeners]) {
      try {
        listener(events);
      } catch (error) {
        console.error('file list: a listener failed:', error);
      }
    }
  }

  return {
    ready,
    async settled() {
      await ready;
      for (;;) {
        // A macrotask lets the feed loop above pull every frame already queued for it (deliveries are
        // microtasks), which schedules their batch.
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (processing !== undefined) await processing;
        else if (closed || (pending.size === 0 && !resyncPending)) return;
      }
    },
    get isReady() {
      return walked && state.root.entries !== null;
    },
    get generation() {
      return generation;
    },
    files({ includeIgnored }) {
      if (cached.generation !== generation) cached = { generation };
      if (includeIgnored) return (cached.all ??= sortedFiles(state.root, true));
      return (cached.searched ??= sortedFiles(state.root, false));
    },
    get(path) {
      return fileAt(state.root, path);
    },
    onChange(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    walkBreadthFirst(visit, walkOptions) {
      return walkTreeBreadthFirst(state.root, visit, walkOptions);
    },
    coversBreadthFirstWalk() {
      if (covers.generation !== generation || covers.root !== state.root) {
        covers = { generation, root: state.root, value: !holdsFoldersSeed000Enters(state.root) };
      }
      return covers.value;
    },
    storeFiles() {
      return walkStoreFiles(fs, rootSlash, makeFile, storeFolders(state.folders.values()));
    },
    close() {
      if (closed) return;
      closed = true;
      listeners.clear();
      subscription.close();
    },
  };
}

function kindOf(type: string): TreeEntry['kind'] {
  return type === 'file' ? 'file' : type === 'dir' ? 'folder' : type === 'symlink' ? 'link' : 'other';
}

function indexLink(state: TreeState, relPath: string, entry: LinkEntry): void {
  if (entry.resolved === undefined) return;
  let links = state.linksByTarget.get(entry.resolved);
  if (!links) state.linksByTarget.set(entry.resolved, (links = new Set()));
  links.add(relPath);
}

function unindexLink(state: TreeState, relPath: string, entry: LinkEntry): void {
  if (entry.resolved === undefined) return;
  state.linksByTarget.get(entry.resolved)?.delete(relPath);
}

/** Drops folders that lie inside another one of the set (recomputing the outer covers them). */
function outermost(folders: ReadonlySet<string>): string[] {
  const sorted = [...folders].sort();
  const out: string[] = [];
  for (const folder of sorted) {
    if (out.some((outer) => outer === '' || folder === outer || folder.startsWith(outer + '/'))) continue;
    out.push(folder);
  }
  return out;
}

/**
 * Every listed file under `root`, in code-unit order of path, without comparing paths (78 579 of them sort in
 * a fifth of a second here): a depth-first walk that takes each folder's entries in name order, except that a
 * folder's own files come where `name + '/'` falls — before it come the siblings that extend its name with a
 * character below '/' (`a-b`, `a.txt` before `a/x`), which sit right after it in name order.
 */
function sortedFiles(root: FolderNode, includeIgnored: boolean): readonly ListedFile[] {
  const files: ListedFile[] = [];
  const emitRange = (entries: readonly TreeEntry[], from: number, to: number): void => {
    let i = from;
    while (i < to) {
      const entry = entries[i]!;
      if (entry.kind === 'file') {
        if (entry.file && (includeIgnored || !entry.file.ignored)) files.push(entry.file);
        i++;
      } else if (entry.kind === 'folder' && entry.folder) {
        const name = entry.name;
        let j = i + 1;
        while (j < to && entries[j]!.name.startsWith(name) && entries[j]!.name.charCodeAt(name.length) < 0x2f) j++;
        emitRange(entries, i + 1, j);
        const inner = entry.folder.entries;
        if (inner) emitRange(inner, 0, inner.length);
        i = j;
      } else i++;
    }
  };
  if (root.entries) emitRange(root.entries, 0, root.entries.length);
  return files;
}
