/**
 * The files inside the folders the list keeps as names only (./search-ignored.ts ON_DEMAND_FOLDERS: package
 * stores the OS watcher never enters, so the list could not keep them current), walked from storage when a
 * search asks for ignored files. Bounded: at most MAX_STORE_FILES files per call, folders read one at a time,
 * stats a few at a time. Every file is `ignored`; links are skipped and `.git` never entered, as in the list.
 */
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { isFsError } from '../../../adapters/fs/fs-error.ts';
import { mapLimited } from '../../listing/map-limited.ts';
import { childRelPath, type FolderNode } from './folder-tree.ts';
import type { ListedFile, MakeListedFile } from './listed-file.ts';
import { NEVER_LISTED } from './search-ignored.ts';

export const MAX_STORE_FILES = 200_000;
const STATS_AT_ONCE = 16;

/** The root-relative paths of the on-demand folders among `folders`' entries. */
export function storeFolders(folders: Iterable<FolderNode>): string[] {
  const stores: string[] = [];
  for (const folder of folders) {
    for (const entry of folder.entries ?? []) {
      if (entry.kind === 'folder' && entry.onDemand) stores.push(childRelPath(folder.relPath, entry.name));
    }
  }
  return stores;
}

/** The files inside `stores` (root-relative folder paths), in order of store path. */
export async function* walkStoreFiles(
  fs: FileSystem,
  rootSlash: string,
  makeFile: MakeListedFile,
  stores: readonly string[],
  maxFiles = MAX_STORE_FILES,
): AsyncGenerator<ListedFile> {
  let count = 0;
  for (const store of [...stores].sort()) {
    const stack = [store];
    while (stack.length > 0) {
      const relDir = stack.pop()!;
      let names;
      try {
        names = await fs.readdir(rootSlash + relDir);
      } catch (error) {
        if (isFsError(error)) continue;
        throw error;
      }
      names.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0)); // popped back in name order
      const files: string[] = [];
      for (const { name, type } of names) {
        if (name === NEVER_LISTED) continue;
        if (type === 'dir') stack.push(childRelPath(relDir, name));
        else if (type === 'file') files.push(childRelPath(relDir, name));
      }
      files.reverse();
      const listed = await mapLimited(files.slice(0, maxFiles - count), STATS_AT_ONCE, async (path) => {
        try {
          const stat = await fs.lstat(rootSlash + path);
          return stat.type === 'file'
            ? makeFile(path, stat.size, stat.version, true)
            : undefined;
        } catch (error) {
          if (isFsError(error)) return undefined;
          throw error;
        }
      });
      for (const file of listed) {
        if (!file) continue;
        count++;
        yield file;
      }
      if (count >= maxFiles) return;
    }
  }
}
