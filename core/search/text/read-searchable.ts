/**
 * Reading a listed file for search: its bytes (at most MAX_SEARCHED_FILE_BYTES), or undefined when it is too big,
 * gone, or no longer a regular file inside the workspace.
 *
 * The list holds regular files only (docs/intentic-search.md: symbolic links are skipped), but a file can be replaced by a
 * link after it was listed — before the change feed says so, or with no watcher at all — and `FileSystem.read`
 * follows links. So a read is only kept when the path was a regular file just before it and still resolves to
 * itself just after it (its real path is its listed path: no link in place of the file or of a folder above it).
 * The Node scan and index workers open with O_NOFOLLOW instead (adapters/search).
 */
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { isFsError } from '../../../adapters/fs/fs-error.ts';
import { MAX_SEARCHED_FILE_BYTES } from '../answer.ts';

export async function readSearchable(fs: FileSystem, absolutePath: string): Promise<Uint8Array | undefined> {
  try {
    if ((await fs.lstat(absolutePath)).type !== 'file') return undefined;
    // One byte past the cap tells a file over it apart without a stat of its size.
    const bytes = await fs.read(absolutePath, { offset: 0, length: MAX_SEARCHED_FILE_BYTES + 1 });
    if (bytes.byteLength > MAX_SEARCHED_FILE_BYTES) return undefined;
    if ((await fs.realpath(absolutePath)) !== absolutePath) return undefined;
    return bytes;
  } catch (error) {
    if (isFsError(error)) return undefined;
    throw error;
  }
}
