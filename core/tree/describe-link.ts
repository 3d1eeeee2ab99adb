import { isFsError } from '../../adapters/fs/fs-error.ts';
import { isInside } from '../../adapters/fs/posix-path.ts';
import type { TreeLink } from './tree-entry.ts';
import type { TreePlace } from './tree-place.ts';

export interface DescribedLink {
  type: 'file' | 'dir';
  link: TreeLink;
  /** The target's size, for a link to a file inside the workspace. */
  size?: number;
  /** The target's real path, for a link to a folder inside the workspace (a walk may enter it). */
  real?: string;
}

/**
 * A symlink as the tree lists it (docs/intentic.md#tree): its target's kind with `link.to` verbatim; a dangling
 * one (or a loop) is a file with `state: "broken"`; one whose real target leaves the workspace, or lands in
 * the excluded folder, has `state: "outside"`, no size, and is never entered. Null if the link vanished.
 */
export async function describeLink(place: TreePlace, path: string): Promise<DescribedLink | null> {
  const { fs } = place;
  let to: string;
  try {
    to = await fs.readlink(path);
  } catch (error) {
    if (isFsError(error)) return null;
    throw error;
  }
  let real: string;
  let type: 'file' | 'dir';
  let size: number;
  try {
    real = await fs.realpath(path);
    const stat = await fs.stat(real);
    type = stat.type === 'dir' ? 'dir' : 'file';
    size = stat.size;
  } catch (error) {
    if (isFsError(error)) return { type: 'file', link: { to, state: 'broken' } };
    throw error;
  }
  if (!isInside(place.root, real) || (place.excluded !== undefined && isInside(place.excluded, real))) {
    return { type, link: { to, state: 'outside' } };
  }
  return type === 'dir' ? { type, link: { to }, real } : { type, link: { to }, size };
}
