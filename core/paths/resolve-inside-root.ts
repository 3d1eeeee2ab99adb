import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { isInside, join, normalize, segments } from '../../adapters/fs/posix-path.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';

const MAX_SYMLINK_HOPS = 40;

export interface ResolveOptions {
  /** docs/ori.md#paths: absolute paths are used as-is and nothing is refused for leaving the root. */
  unrestricted?: boolean;
}

/**
 * Resolves a client-supplied path to an absolute real path and refuses anything outside `root`.
 *
 * Containment is decided on real paths, never by string prefix: the lexical path must stay under the root,
 * and so must the path after every symlink on the way is followed — including a dangling final link, whose
 * target is where a write would land. Query strings arrive percent-decoded already, so "%2e%2e" is ".."
 * here; backslashes are treated as separators so "..\\x" cannot sneak past on any platform.
 *
 * `root` must itself be a real path. Paths that do not exist yet resolve to where they would be created.
 */
export async function resolveInsideRoot(
  fs: FileSystem,
  root: string,
  requested: string,
  options: ResolveOptions = {},
): Promise<string> {
  if (requested.includes('\0')) throw new WorkspaceError('bad-request', 'path contains a NUL byte');
  const slashed = requested.replace(/\\/g, '/');
  const lexical = slashed.startsWith('/') ? normalize(slashed) : join(root, slashed);
  if (!options.unrestricted && !isInside(root, lexical)) throw outside(requested);
  const real = await realpathAllowingMissing(fs, lexical);
  if (!options.unrestricted && !isInside(root, real)) throw outside(requested);
  // "a.txt/" names a folder, as it does for the kernel (ENOTDIR), even though normalising drops the slash.
  if (slashed.endsWith('/') && slashed !== '/') await requireFolderIfPresent(fs, real);
  return real;
}

async function requireFolderIfPresent(fs: FileSystem, path: string): Promise<void> {
  let type;
  try {
    type = (await fs.stat(path)).type;
  } catch (error) {
    if (isFsError(error, 'not-found')) return;
    throw error;
  }
  if (type !== 'dir') throw new WorkspaceError('bad-request', 'not a directory');
}

function outside(requested: string): WorkspaceError {
  return new WorkspaceError('outside-workspace', 'path is outside the workspace', { path: requested });
}

/**
 * Like realpath(3), but a missing tail is allowed: once a component does not exist, the rest is appended
 * lexically. The fast path is one `realpath` call; only missing paths walk component by component.
 */
async function realpathAllowingMissing(fs: FileSystem, path: string): Promise<string> {
  try {
    return await fs.realpath(path);
  } catch (error) {
    if (!isFsError(error, 'not-found') && !isFsError(error, 'not-directory')) throw error;
  }
  let resolved = '/';
  const pending = segments(path);
  let hops = 0;
  while (pending.length > 0) {
    const segment = pending.shift()!;
    if (segment === '.') continue;
    if (segment === '..') {
      resolved = normalize(resolved + '/..');
      continue;
    }
    const next = join(resolved, segment);
    let type;
    try {
      type = (await fs.lstat(next)).type;
    } catch (error) {
      if (isFsError(error, 'not-found') || isFsError(error, 'not-directory')) {
        // "missing/.." does not exist for the kernel either (ENOENT): folding it lexically here would let a
        // link like `x -> missing/../escape` resolve to a path the real lookup would never reach.
        if (pending.includes('..')) throw new WorkspaceError('not-found', 'no such file or directory');
        return normalize([next, ...pending].join('/'));
      }
      throw error;
    }
    if (type !== 'symlink') {
      resolved = next;
      continue;
    }
    if (++hops > MAX_SYMLINK_HOPS) throw new WorkspaceError('bad-request', 'too many levels of symbolic links');
    const target = await fs.readlink(next);
    if (target.startsWith('/')) resolved = '/';
    pending.unshift(...segments(target));
  }
  return resolved;
}
