/**
 * The folders the ignore rules exclude, found by a walk: what the OS watcher is told not to enter
 * (core/changes/watcher-source.ts), so a `build/` or `target/` of thousands of folders costs no kernel watch.
 * Edge-clean: it only lists folders through the FileSystem.
 *
 * The walk enters every folder that is not ignored (links are never followed, as the watcher does not follow
 * them) and collects each ignored folder it meets without entering it. Folders skipped by name or path (what
 * the watcher already ignores: `.git`, the package stores, the agents folder) are neither entered nor listed.
 * Bounded twice: after `maxFolders` listings it stops, and it keeps at most `maxIgnored` folders (the watcher
 * checks every path against every ignored path). What it leaves out is watched, never lost: the change
 * subscriptions filter by the same rules.
 *
 * It can give way (`giveWay`): a search asked just after start walks the same folders itself, and on 2 cores
 * this walk (and the OS watcher's crawl that only starts after it) took the core that search needed.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isInside, join } from '../../adapters/fs/posix-path.ts';
import type { IgnoreRules } from './ignore-rules.ts';
import { holdsVirtualenvMarker } from './package-stores.ts';
import { GITIGNORE } from './rules-file.ts';

export const DEFAULT_MAX_LISTED_FOLDERS = 100_000;
export const DEFAULT_MAX_IGNORED_FOLDERS = 1000;

export interface IgnoredFoldersOptions {
  /** Root-relative folder to walk below ('' for the whole root): what a changed `.gitignore` there rules over. */
  under?: string;
  /** Folder names never entered nor listed. */
  skipNames?: ReadonlySet<string>;
  /** Absolute folders never entered nor listed. */
  skipPaths?: readonly string[];
  maxFolders?: number;
  maxIgnored?: number;
  /** While this returns a promise, no more folders are read until it settles (a search walking the tree runs). */
  giveWay?: () => Promise<void> | undefined;
}

export interface IgnoredFolders {
  /** Absolute paths of the ignored folders found, in walk order (breadth first). */
  folders: string[];
  /** False when a bound cut the walk short (some ignored folders may be missing). */
  complete: boolean;
}

export async function findIgnoredFolders(
  fs: FileSystem,
  root: string,
  rules: IgnoreRules,
  options: IgnoredFoldersOptions = {},
): Promise<IgnoredFolders> {
  const maxFolders = options.maxFolders ?? DEFAULT_MAX_LISTED_FOLDERS;
  const maxIgnored = options.maxIgnored ?? DEFAULT_MAX_IGNORED_FOLDERS;
  const skipNames = options.skipNames ?? new Set<string>();
  const skipPaths = options.skipPaths ?? [];
  const start = options.under ?? '';
  const absolute = (rel: string) => (rel === '' ? root : join(root, rel));

  const folders: string[] = [];
  // The walk only asks a folder's matcher about its children, so the start itself must not be ignored.
  if (start !== '' && (await rules.isIgnored(start, true))) return { folders, complete: true };
  const queue = [start];
  let listed = 0;
  while (queue.length > 0) {
    if (listed++ >= maxFolders) return { folders, complete: false };
    const rel = queue.shift()!;
    for (let turn = options.giveWay?.(); turn !== undefined; turn = options.giveWay?.()) await turn;
    let entries;
    try {
      entries = await fs.readdir(absolute(rel));
    } catch {
      continue; // gone or unreadable meanwhile: nothing below it to watch either
    }
    // A virtual environment is known by what it holds (core/ignore/package-stores.ts): listed, then not entered.
    if (rel !== start && holdsVirtualenvMarker(entries)) {
      if (!keep(absolute(rel))) return { folders, complete: false };
      continue;
    }
    const matcher = await rules.folder(rel, { gitignore: entries.some((e) => e.name === GITIGNORE && e.type === 'file') });
    for (const entry of entries) {
      if (entry.type !== 'dir' || skipNames.has(entry.name)) continue;
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      const path = absolute(child);
      if (skipPaths.some((skipped) => isInside(skipped, path))) continue;
      if (!matcher.ignores(entry.name, true)) queue.push(child);
      else if (!keep(path)) return { folders, complete: false };
    }
  }
  return { folders, complete: true };

  function keep(path: string): boolean {
    if (folders.length >= maxIgnored) return false;
    folders.push(path);
    return true;
  }
}
