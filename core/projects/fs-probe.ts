/** Small FileSystem questions the project walks ask, where "gone" or "unreadable" is an answer, not an error. */
import type { DirEntry, FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { compareCodeUnits } from '../text/code-units.ts';

/** The entry's own type (a link is `symlink`: never followed), or undefined when there is none. */
export async function entryType(fs: FileSystem, path: string): Promise<string | undefined> {
  try {
    return (await fs.lstat(path)).type;
  } catch (error) {
    if (isFsError(error)) return undefined;
    throw error;
  }
}

/** A folder's entries sorted by name (code units), or none when it cannot be read. */
export async function sortedEntries(fs: FileSystem, dir: string): Promise<DirEntry[]> {
  let entries: DirEntry[];
  try {
    entries = await fs.readdir(dir);
  } catch (error) {
    if (isFsError(error)) return [];
    throw error;
  }
  return entries.sort((a, b) => compareCodeUnits(a.name, b.name));
}

/** `dir/name` for absolute POSIX folders, the root `/` included. */
export function childPath(dir: string, name: string): string {
  return `${dir === '/' ? '' : dir}/${name}`;
}

/** `rel/name` for relative folders, `""` being the base itself. */
export function childRelative(rel: string, name: string): string {
  return rel === '' ? name : `${rel}/${name}`;
}
