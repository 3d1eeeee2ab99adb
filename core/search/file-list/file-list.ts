/**
 * The live file list: every file of the workspace, kept current by the change feed, so a search never walks
 * the disk per query. The engine is ./create-file-list.ts. Edge-clean.
 *
 * What it holds (docs/intentic-search.md "What is searched"): every regular file under the root except `.git` (never, not
 * even with `includeIgnored`), each with `ignored` per search's rules. Folders the OS watcher never enters
 * (the package stores of core/ignore/package-stores.ts, `.hg`, `.svn`) are kept as names only — their files are
 * walked on demand by `storeFiles`. Symbolic links are not files, but the folder structure keeps every entry
 * (links, sockets, ignored and store folders) because ori's walk counts them (`walkBreadthFirst`).
 */
import type { ListedFile } from './listed-file.ts';

export type FileListEvent = { kind: 'upsert'; file: ListedFile } | { kind: 'remove'; path: string } | { kind: 'reset' };

export interface WalkedFolder {
  /** Absolute path of the folder. */
  path: string;
  /** Root-relative path with '/' ("" for the root). */
  relPath: string;
}

/** Called once per folder, in walk order, with the names of its files in order. Return true to stop. */
export type FolderVisitor = (folder: WalkedFolder, fileNames: readonly string[]) => boolean | void;

export interface WalkSummary {
  /** Directory entries counted against the budget. */
  entriesSeen: number;
  /** True when the walk stopped because the budget ran out. */
  truncated: boolean;
}

export interface BreadthFirstOptions {
  /** Stop after this many directory entries (docs/ori.md#search: 50 000). */
  maxEntries: number;
  /**
   * List links to regular files outside the root too (ori's `--unrestricted`); by default a link is
   * listed only when its real target is a regular file inside the root.
   */
  linksLeavingRoot?: boolean;
}

export interface FileList {
  /** Resolves once the first walk has ended (whatever it found; see `isReady`). Never rejects. */
  readonly ready: Promise<void>;
  /** The first walk is done and the root could be read: the list answers for the workspace. */
  readonly isReady: boolean;
  /** Bumps on every applied batch that changed something: a cache key. */
  readonly generation: number;
  /** Regular files in code-unit order of path; the same array until the next change (cached per generation). */
  files(options: { includeIgnored: boolean }): readonly ListedFile[];
  get(path: string): ListedFile | undefined;
  /** Called after the list applied a batch of changes, with what changed; returns the unsubscribe function. */
  onChange(listener: (events: readonly FileListEvent[]) => void): () => void;
  /**
   * ori's walk (handlers/api/file-search.ts `walkFiles`) over the list: breadth-first, each folder's
   * entries in code-unit order of their names, every entry counted against `maxEntries`, `.git` and
   * `node_modules` never entered, links to files listed at their own path.
   */
  walkBreadthFirst(visit: FolderVisitor, options: BreadthFirstOptions): WalkSummary;
  /**
   * Whether `walkBreadthFirst` is the disk walk exactly: false while the tree holds a folder ori enters but
   * the list keeps as a name only (`bower_components`, `.hg`, … — every on-demand folder but `node_modules`).
   */
  coversBreadthFirstWalk(): boolean;
  /** For `includeIgnored`: the files inside the folders the list keeps as names only, walked now, bounded. */
  storeFiles(): AsyncIterable<ListedFile>;
  /**
   * Resolves once the list has applied every change the feed had delivered when it was called (and the first
   * walk): after an API write returns, `settled()` means the list shows it.
   */
  settled(): Promise<void>;
  /** Stops following the change feed. */
  close(): void;
}
