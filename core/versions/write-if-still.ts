/**
 * Optimistic "read, check, write" as one critical section, without holding a lock while deciding: `check`
 * looks at the file's current state, and `commit` writes pinned to exactly that state (`ifVersion` when a
 * file was there, `exclusive` when nothing was). A backend behind SerializedFileSystem checks the pin and
 * commits in one step, so the write lands only on the state that was checked; if the state moved in
 * between, the commit fails and the decision is taken again on the new state (or refused).
 *
 * This works through any FileSystem that honours `ifVersion` and `exclusive` (an agent's overlay included),
 * which a lock keyed by path could not promise.
 */
import type { FileStat, FileSystem, WriteOptions } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';

/** The write options that commit only onto `current` (undefined: onto nothing). */
export type Pin = Pick<WriteOptions, 'ifVersion' | 'exclusive'>;

export interface WriteIfStillOptions<T> {
  /** Why the write must not happen on this state (undefined: nothing there), or undefined to go ahead. */
  check(current: FileStat | undefined): Promise<string | undefined> | string | undefined;
  commit(pin: Pin): Promise<T>;
  /** Decisions to take at most: 1 when the commit cannot be repeated (a consumed request body). */
  attempts: number;
  /** The error for a refusal (`check`'s reason), or for a state that kept moving under every attempt. */
  refuse(reason: string): Error;
}

export async function writeIfStill<T>(fs: FileSystem, path: string, options: WriteIfStillOptions<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const current = await statOrUndefined(fs, path);
    const reason = await options.check(current);
    if (reason !== undefined) throw options.refuse(reason);
    try {
      return await options.commit(current ? { ifVersion: current.version } : { exclusive: true });
    } catch (error) {
      const moved = isFsError(error, 'version-mismatch') || (current === undefined && isFsError(error, 'exists'));
      if (!moved) throw error;
      if (attempt >= options.attempts) throw options.refuse('the file changed while the write was decided');
    }
  }
}

async function statOrUndefined(fs: FileSystem, path: string): Promise<FileStat | undefined> {
  try {
    return await fs.stat(path);
  } catch (error) {
    if (isFsError(error, 'not-found')) return undefined;
    throw error;
  }
}
