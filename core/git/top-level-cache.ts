/**
 * The repo top level of a folder (`rev-parse --show-toplevel`), remembered: every git command first finds its repo,
 * and a git process started from the daemon costs 10–30 ms (Node forks the whole, large process), a third of a
 * `get_git_diff`. An answer git gave for folder F — top level R — is reused while the file system still says the
 * same: F is still a folder, R has its `.git` and no folder from F up to R (R excluded) has gained one (`git init`
 * in between, a nested clone). Anything else (R's `.git` gone or unreadable, a `.git` in between) drops it, and git is asked again.
 * Folders inside a `.git` are never remembered (git answers those with an error). Edge-clean: lstat only.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { dirname, isInside, relativeTo } from '../../adapters/fs/posix-path.ts';

/** Folders remembered at most; the oldest is forgotten first. */
const MAX_FOLDERS = 512;

export class TopLevelCache {
  readonly #known = new Map<string, string>();

  constructor(private readonly fs: Pick<FileSystem, 'lstat'>) {}

  /** R for `folder` if git said so and it still holds, else undefined (ask git). */
  async lookup(folder: string): Promise<string | undefined> {
    const root = this.#known.get(folder);
    if (root === undefined) return undefined;
    if (await this.#stillHolds(folder, root)) return root;
    this.#known.delete(folder);
    return undefined;
  }

  /** What git answered for `folder`. */
  remember(folder: string, root: string): void {
    if (!isInside(root, folder)) return;
    if (folder !== root && relativeTo(root, folder).split('/').some((segment) => segment.toLowerCase() === '.git')) return;
    this.#known.delete(folder);
    this.#known.set(folder, root);
    if (this.#known.size > MAX_FOLDERS) this.#known.delete(this.#known.keys().next().value!);
  }

  async #stillHolds(folder: string, root: string): Promise<boolean> {
    const between: string[] = [];
    for (let dir = folder; dir !== root; dir = dirname(dir)) between.push(dir);
    const [stillAFolder, rootHasGit, ...others] = await Promise.all([
      this.#isFolder(folder),
      this.#hasGit(root),
      ...between.map((dir) => this.#hasGit(dir)),
    ]);
    return stillAFolder && rootHasGit === true && others.every((has) => has === false);
  }

  /** A folder that was removed or replaced by a file is in no repo any more (`not a git repository`). */
  async #isFolder(path: string): Promise<boolean> {
    try {
      return (await this.fs.lstat(path)).type === 'dir';
    } catch {
      return false;
    }
  }

  /** Whether `dir/.git` exists; undefined when that cannot be told (then nothing is trusted). */
  async #hasGit(dir: string): Promise<boolean | undefined> {
    try {
      await this.fs.lstat(`${dir === '/' ? '' : dir}/.git`);
      return true;
    } catch (error) {
      return isFsError(error, 'not-found') || isFsError(error, 'not-directory') ? false : undefined;
    }
  }
}
