import type { FileSystem } from '../file-system.ts';
import { FsError } from '../fs-error.ts';
import { join } from '../posix-path.ts';

/**
 * Copies the entry at `from` in `source` (not followed: a link is copied as a link) to `to` in `target`, where
 * nothing may exist yet (`exists` otherwise). Within one FileSystem that is its own `copy` (modes kept, and
 * cheap: copyFile on disk, shared bytes in memory); across two, a recursive copy that streams file contents.
 */
export async function copyAcross(source: FileSystem, from: string, target: FileSystem, to: string): Promise<void> {
  if (source === target) {
    await source.copy(from, to);
    return;
  }
  const stat = await source.lstat(from);
  switch (stat.type) {
    case 'symlink':
      await target.symlink(await source.readlink(from), to);
      return;
    case 'file':
      await target.writeStream(to, await source.readStream(from), { exclusive: true });
      return;
    case 'dir':
      await target.mkdir(to);
      for (const entry of await source.readdir(from)) {
        await copyAcross(source, join(from, entry.name), target, join(to, entry.name));
      }
      return;
    default:
      throw new FsError('invalid', from, `invalid: cannot copy a special file: ${from}`);
  }
}
