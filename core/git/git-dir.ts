/**
 * Where a repo's git data lives, read the way git reads it (no git process): `<repo>/.git` is either the git dir
 * itself, or a FILE saying `gitdir: <path>` (a linked worktree, a submodule), relative to the folder holding the
 * file. A linked worktree's git dir holds its own HEAD and index, and a `commondir` file naming (relative to the
 * git dir) the dir that holds the shared refs and packed-refs; elsewhere the common dir is the git dir.
 * Edge-clean: reads through the FileSystem only.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { isInside, join } from '../../adapters/fs/posix-path.ts';

export interface GitDirs {
  /** HEAD, index, MERGE_HEAD, per-worktree state: absolute real path. */
  gitDir: string;
  /** refs/, packed-refs, refs/stash: absolute real path (the git dir itself unless a linked worktree). */
  commonDir: string;
}

/** What a `.git` file or `commondir` may hold: one line, read in full (git's own files are far smaller). */
const MAX_POINTER_BYTES = 4096;

/**
 * The git dirs of the repo at `repo` (an absolute real path), or undefined when it has none git would accept:
 * no `.git`, a `.git` file that names nothing, or a git dir without HEAD (an empty `.git` folder is no repo).
 * With `within`, git dirs outside that folder count as none: watching follows them, and a `.git` file is just
 * a file anyone can write (`gitdir: /` must not make the daemon watch the whole disk).
 */
export async function resolveGitDirs(fs: FileSystem, repo: string, within?: string): Promise<GitDirs | undefined> {
  const dotGit = join(repo, '.git');
  try {
    const stat = await fs.lstat(dotGit);
    let gitDir: string;
    if (stat.type === 'dir') gitDir = await fs.realpath(dotGit);
    else if (stat.type === 'file') {
      const pointer = /^gitdir: *(.+?)\s*$/m.exec(await readText(fs, dotGit));
      if (!pointer) return undefined;
      gitDir = await fs.realpath(absoluteFrom(repo, pointer[1]!));
    } else return undefined;
    let commonDir = gitDir;
    const common = await readOptional(fs, join(gitDir, 'commondir'));
    if (common !== undefined && common.trim() !== '') commonDir = await fs.realpath(absoluteFrom(gitDir, common.trim()));
    if ((await fs.lstat(join(gitDir, 'HEAD'))).type !== 'file') return undefined;
    if (within !== undefined && !(isInside(within, gitDir) && isInside(within, commonDir))) return undefined;
    return { gitDir, commonDir };
  } catch (error) {
    if (isFsError(error)) return undefined; // missing, unreadable, a loop: not a repo git can use either
    throw error;
  }
}

function absoluteFrom(base: string, path: string): string {
  return path.startsWith('/') ? join(path) : join(base, path);
}

async function readText(fs: FileSystem, path: string): Promise<string> {
  return new TextDecoder().decode(await fs.read(path, { offset: 0, length: MAX_POINTER_BYTES }));
}

async function readOptional(fs: FileSystem, path: string): Promise<string | undefined> {
  try {
    return await readText(fs, path);
  } catch (error) {
    if (isFsError(error, 'not-found')) return undefined;
    throw error;
  }
}
