/**
 * The workspace's git repositories, as Intentic's `GET /workspace/repos` and `POST /workspace/sync` see them
 * (docs/intentic.md#repos): a breadth-first walk from the root over at most MAX_FOLDERS
 * folders. A child folder is considered only when it is a real folder (not a link), not hidden, not a package or
 * build folder, named like a repo (`^[a-zA-Z0-9][a-zA-Z0-9._-]*$`) and, at the top level, not one of the names
 * Intentic reserves; anything else is skipped and not entered. A considered folder holding `.git` (a folder, or the
 * file of a worktree or submodule) is a repo — its id is its root-relative path, and it is not entered — else it
 * is walked, down to ids of MAX_SEGMENTS segments. The root's own `.git` never counts: the root is no repo id.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';

/** Folders read at most. */
export const MAX_FOLDERS = 10_000;
/** Segments of a repo id at most. */
export const MAX_SEGMENTS = 4;

const SKIPPED_FOLDERS = new Set([
  'node_modules', '.git', '.tmp', 'dist', '.cache', '.turbo', '.next', '.angular', '.pnpm-store', '.yarn', '.venv',
  'venv', '__pycache__', '.pytest_cache', '.mypy_cache', '.ruff_cache', '.gradle',
]);
const RESERVED_TOP_LEVEL = new Set(['root', 'refs', 'public']);
const REPO_NAME = /^[a-zA-Z0-9][a-zA-Z0-9._-]*$/;

export interface DiscoverOptions {
  /** Absolute folders never entered (the agents' copies). */
  exclude?: readonly string[];
}

/** The repo ids under `root` (an absolute real path), sorted by UTF-16 code units. */
export async function discoverRepos(fs: FileSystem, root: string, options: DiscoverOptions = {}): Promise<string[]> {
  const excluded = new Set(options.exclude ?? []);
  const repos: string[] = [];
  const queue: string[] = [''];
  let read = 0;
  while (queue.length > 0 && read < MAX_FOLDERS) {
    const rel = queue.shift()!;
    const depth = rel === '' ? 0 : rel.split('/').length;
    let entries;
    try {
      entries = await fs.readdir(rel === '' ? root : `${root}/${rel}`);
    } catch (error) {
      if (isFsError(error)) continue; // gone or unreadable since it was listed: nothing under it
      throw error;
    }
    read++;
    // In name order, so which folders the budget reaches does not depend on the backend's listing order.
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (!considered(entry.name, entry.type, depth)) continue;
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      const childPath = `${root}/${childRel}`;
      if (excluded.has(childPath)) continue;
      if (await holdsGit(fs, childPath)) repos.push(childRel);
      else if (depth + 1 < MAX_SEGMENTS) queue.push(childRel);
    }
  }
  return repos.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Whether `name` is a folder name discovery can list as (part of) a repo id. */
export function isRepoFolderName(name: string): boolean {
  return REPO_NAME.test(name) && !SKIPPED_FOLDERS.has(name);
}

function considered(name: string, type: string, parentDepth: number): boolean {
  if (type !== 'dir' || name.startsWith('.') || !isRepoFolderName(name)) return false;
  return !(parentDepth === 0 && RESERVED_TOP_LEVEL.has(name));
}

async function holdsGit(fs: FileSystem, folder: string): Promise<boolean> {
  try {
    const stat = await fs.lstat(`${folder}/.git`);
    return stat.type === 'dir' || stat.type === 'file';
  } catch (error) {
    if (isFsError(error)) return false;
    throw error;
  }
}
