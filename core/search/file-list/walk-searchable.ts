/**
 * A direct walk of the workspace for a search asked while the live file list's first walk is still running
 * (freshness `building`: docs/intentic.md): the files the list will hold, with the same `ignored` flags —
 * the same rules, from ./read-tree.ts (`.git` never; package stores only with `includeIgnored`, and then walked
 * as the list walks them; the excluded folders; `.gitignore` rules and virtualenvs), symbolic links and special
 * files skipped — but without a stat per file. Size and version are not known (0 and ''): a scan needs neither,
 * since every read enforces the 1 MiB text cap itself, and that is what lets the first folder's files reach the
 * scanner before the last folder is read, as ripgrep's do. On the kernel tree the list's first walk takes ~9 s
 * (an lstat per file, behind the OS watcher's own crawl); this one lists its 78 255 searchable files in 0.4–0.8 s
 * on this loaded 2-core machine (a bare readdir walk: ~0.13 s; most of the rest is matching `.gitignore` rules).
 *
 * Files come a folder at a time, in no set order; with `includeIgnored`, the package stores' files after the rest
 * (`fromStores`), in the order the list's `storeFiles` gives them. A folder that cannot be read is skipped, as
 * the list skips it; the root's failure is thrown. Without `includeIgnored`, ignored folders are not entered: everything below
 * one is ignored too.
 */
import type { DirEntry, FileSystem } from '../../../adapters/fs/file-system.ts';
import { isFsError } from '../../../adapters/fs/fs-error.ts';
import { createIgnoreRules } from '../../ignore/ignore-rules.ts';
import { holdsVirtualenvMarker } from '../../ignore/package-stores.ts';
import { childRelPath, type FolderNode } from './folder-tree.ts';
import { listedFileMaker, type ListedFile } from './listed-file.ts';
import { childIgnored, folderEntry, matcherFor, newFolderNode, type TreeContext } from './read-tree.ts';
import { NEVER_LISTED } from './search-ignored.ts';
import { walkStoreFiles } from './store-files.ts';

/** readdir calls in flight: enough to keep the host's I/O threads busy without queueing thousands. */
const FOLDERS_AT_ONCE = 16;
/** Store files handed on at a time (they are stat'ed one by one, so they trickle). */
const STORE_BATCH = 256;

export interface SearchableWalkOptions {
  fs: FileSystem;
  /** The workspace root, a real path. */
  root: string;
  /** Absolute real folders never entered (the agents' copies). */
  exclude: readonly string[];
  includeIgnored: boolean;
}

export interface WalkedBatch {
  files: readonly ListedFile[];
  /** Files of the package stores (walked last, each stat'ed: they are few, and searched only when asked for). */
  fromStores: boolean;
}

export async function* walkSearchable(options: SearchableWalkOptions): AsyncGenerator<WalkedBatch> {
  const { fs, root, includeIgnored } = options;
  const rootSlash = root === '/' ? '/' : root + '/';
  const ctx: TreeContext = {
    fs,
    root,
    rootSlash,
    exclude: new Set(options.exclude),
    rules: createIgnoreRules(fs, root),
    makeFile: listedFileMaker(rootSlash),
    onLink: () => {},
    onFolder: () => {},
  };
  const rootNode = newFolderNode(ctx, '', false);
  const waiting: FolderNode[] = [rootNode];
  const found: (readonly ListedFile[])[] = [];
  const stores: string[] = [];
  let taken = 0;
  let active = 0;
  let stopped = false;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;

  const pump = () => {
    while (!stopped && active < FOLDERS_AT_ONCE && waiting.length > 0) {
      const node = waiting.pop()!; // depth first: the frontier stays small
      active++;
      readFolderFiles(ctx, node, includeIgnored).then(
        (read) => {
          active--;
          for (const child of read.children) waiting.push(child);
          for (const store of read.stores) stores.push(store);
          if (read.files.length > 0) found.push(read.files);
          pump();
          wake?.();
        },
        (error: unknown) => {
          active--;
          failure ??= { error };
          wake?.();
        },
      );
    }
  };

  try {
    pump();
    for (;;) {
      if (taken < found.length) {
        const files = found[taken]!;
        found[taken++] = []; // what was handed on is not kept twice
        yield { files, fromStores: false };
        continue;
      }
      if (failure !== undefined) throw failure.error;
      if (active === 0 && waiting.length === 0) break;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  } finally {
    stopped = true;
  }
  if (!includeIgnored || stores.length === 0) return;
  let batch: ListedFile[] = [];
  for await (const file of walkStoreFiles(fs, rootSlash, ctx.makeFile, stores)) {
    batch.push(file);
    if (batch.length >= STORE_BATCH) {
      yield { files: batch, fromStores: true };
      batch = [];
    }
  }
  if (batch.length > 0) yield { files: batch, fromStores: true };
}

interface FolderFiles {
  files: ListedFile[];
  /** Child folders to read. */
  children: FolderNode[];
  /** On-demand folders (package stores), root-relative: walked after the tree with `includeIgnored`. */
  stores: string[];
}

async function readFolderFiles(ctx: TreeContext, node: FolderNode, includeIgnored: boolean): Promise<FolderFiles> {
  const out: FolderFiles = { files: [], children: [], stores: [] };
  let raw: DirEntry[];
  try {
    raw = await ctx.fs.readdir(node.path);
  } catch (error) {
    if (!isFsError(error) || node.relPath === '') throw error;
    return out; // unreadable: its insides are not listed
  }
  node.ignored ||= holdsVirtualenvMarker(raw);
  const matcher = await matcherFor(ctx, node, raw);
  for (const { name, type } of raw) {
    if (type === 'file') {
      if (name === NEVER_LISTED) continue;
      const ignored = childIgnored(node, matcher, name, false);
      if (includeIgnored || !ignored) out.files.push(ctx.makeFile(childRelPath(node.relPath, name), 0, '', ignored));
    } else if (type === 'dir') {
      const made = folderEntry(ctx, node, matcher, name);
      if (made.child !== undefined && (includeIgnored || !made.child.ignored)) out.children.push(made.child);
      else if (made.entry.kind === 'folder' && made.entry.onDemand && includeIgnored) out.stores.push(childRelPath(node.relPath, name));
    }
  }
  return out;
}
