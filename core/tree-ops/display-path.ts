import { isInside, relativeTo } from '../../adapters/fs/posix-path.ts';

/** How error messages name an entry: root-relative, as the client speaks (absolute when outside, unrestricted). */
export function displayPath(root: string, absolute: string): string {
  return isInside(root, absolute) ? relativeTo(root, absolute) || '.' : absolute;
}
