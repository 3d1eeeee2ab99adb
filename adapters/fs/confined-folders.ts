import { FsError } from './fs-error.ts';
import { isInside } from './posix-path.ts';

/**
 * The folders a FileSystem is confined to (FileSystem.confine): a path lexically inside one must not lead outside
 * it. Pure, for every backend: the Node one checks where a descriptor landed (./node-confinement.ts), the ones with
 * their own tree check where a lookup ended (./resolve-path.ts).
 */
export class ConfinedFolders {
  /** Innermost first, so a folder confined inside another (agents' copies under the root) is the one checked. */
  #folders: string[] = [];

  get empty(): boolean {
    return this.#folders.length === 0;
  }

  /** `folder` must be a real, normalised path; `/` confines nothing. */
  add(folder: string): void {
    if (folder === '/' || this.#folders.includes(folder)) return;
    this.#folders = [...this.#folders, folder].sort((a, b) => b.length - a.length);
  }

  /** The folder `path` must stay inside, or undefined when it is not confined. */
  folderOf(path: string): string | undefined {
    for (const folder of this.#folders) if (isInside(folder, path)) return folder;
    return undefined;
  }

  /** Throws unless `real` (where `path` led) is inside `folder`. */
  check(path: string, real: string, folder: string | undefined = this.folderOf(path)): void {
    if (folder !== undefined && !isInside(folder, real)) throw escaped(path, folder);
  }
}

/** permission-denied, which every dialect answers 403: the path is refused as it stands now. */
export function escaped(path: string, folder: string): FsError {
  return new FsError('permission-denied', path, `permission-denied: ${path} leads outside ${folder}`);
}
