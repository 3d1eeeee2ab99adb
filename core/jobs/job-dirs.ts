/**
 * The `dirs` of install and tests (docs/intentic-projects.md#dirs): relative POSIX paths. A `..` segment, an
 * absolute path, `\`, NUL, or a real path outside the base (the root for install, the repo for tests) is
 * BAD_REQUEST naming the value, checked for every dir before anything starts.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { isInside, join } from '../../adapters/fs/posix-path.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';

export interface CheckedDir {
  /** As the client sent it. */
  given: string;
  /** Normalised, relative to the base (`""` for the base itself): `./a/` and `a` are both `a`. */
  relative: string;
  /** The real path, or undefined when nothing is there. */
  real: string | undefined;
  /** Whether the real path is a folder. */
  isFolder: boolean;
}

/** The lexical rules only (no disk): the dir normalised, or BAD_REQUEST naming it. */
export function normalizeDir(dir: string): string {
  const problem =
    dir.includes('\0') ? 'contains NUL'
    : dir.includes('\\') ? 'contains a backslash'
    : dir.startsWith('/') ? 'is absolute'
    : dir.split('/').includes('..') ? 'has a ".." segment'
    : undefined;
  if (problem) throw new WorkspaceError('bad-request', `invalid dir ${JSON.stringify(dir)}: ${problem}`, { dir });
  return dir
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.')
    .join('/');
}

/**
 * Every dir checked, lexically and then by real path against `base` (absolute, a real path): one outside it is
 * BAD_REQUEST (`where` names the base: "the workspace", `repo "shop"`). A dir with nothing there passes with
 * `real` undefined; the caller decides what that means.
 */
export async function checkDirs(fs: FileSystem, base: string, dirs: readonly string[], where: string): Promise<CheckedDir[]> {
  const lexical = dirs.map((given) => ({ given, relative: normalizeDir(given) }));
  const checked: CheckedDir[] = [];
  for (const { given, relative } of lexical) {
    const path = relative === '' ? base : join(base, relative);
    let real: string | undefined;
    try {
      real = await fs.realpath(path);
    } catch (error) {
      if (!isFsError(error, 'not-found') && !isFsError(error, 'not-directory')) throw error;
    }
    if (real !== undefined && !isInside(base, real)) {
      throw new WorkspaceError('bad-request', `invalid dir ${JSON.stringify(given)}: it is outside ${where}`, { dir: given });
    }
    let isFolder = false;
    if (real !== undefined) {
      try {
        isFolder = (await fs.stat(real)).type === 'dir';
      } catch {
        isFolder = false;
      }
    }
    checked.push({ given, relative, real, isFolder });
  }
  return checked;
}
