/**
 * Where a mutation lands, as a real path: what a call changes is named the same way however the caller
 * spelled it (a symlinked folder on the way, a write through a link). Edge-clean.
 */
import type { FileSystem } from './file-system.ts';
import { isFsError } from './fs-error.ts';
import { basename, dirname, join, normalize } from './posix-path.ts';

/** The real path of what a content change lands on: links followed; a missing file's would-be real path. */
export async function realContentPath(fs: FileSystem, path: string): Promise<string> {
  try {
    return await fs.realpath(path);
  } catch (error) {
    if (!isFsError(error)) throw error;
    return realEntryPath(fs, path);
  }
}

/** The entry itself (a link is not followed): its real folder plus its name; the lexical path if even the folder is missing. */
export async function realEntryPath(fs: FileSystem, path: string): Promise<string> {
  const normalized = normalize(path);
  if (normalized === '/') return '/';
  try {
    return join(await fs.realpath(dirname(normalized)), basename(normalized));
  } catch (error) {
    if (!isFsError(error)) throw error;
    return normalized;
  }
}
