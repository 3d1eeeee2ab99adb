import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isInside, join, normalize, relativeTo } from '../../adapters/fs/posix-path.ts';
import { realContentPath } from '../../adapters/fs/real-paths.ts';

/** Where a walk happens: the real root, and a folder inside it that is not part of the tree (the agents'). */
export interface TreePlace {
  fs: FileSystem;
  /** The workspace root (a real path). */
  root: string;
  /** Absolute real path never listed; a link into it counts as leaving the workspace. */
  excluded: string | undefined;
}

/**
 * The place a tree walk runs in: the view's FileSystem and root, and the agents' folder to leave out, as a
 * real path (entries are compared by real path; the configured one may run through a symlinked root).
 */
export async function treePlace(fs: FileSystem, root: string, agentsDir: string): Promise<TreePlace> {
  return { fs, root, excluded: await realContentPath(fs, agentsDir) };
}

/**
 * The root-relative path (with '/') a client path names lexically — root-relative, or absolute under the root,
 * `\` read as `/` — or undefined when it is outside the root. Containment through symlinks is the resolver's
 * job (core/paths); this is how an entry's `path` is presented.
 */
export function workspaceRelative(root: string, written: string): string | undefined {
  const slashed = written.replace(/\\/g, '/');
  const lexical = slashed.startsWith('/') ? normalize(slashed) : join(root, slashed);
  return isInside(root, lexical) ? relativeTo(root, lexical) : undefined;
}
