/**
 * Copy one entry, recursively for a folder, under caps — and never leave half a copy behind.
 *
 * - Bounded: before anything is written the source is measured (measure-tree.ts: a walk that stops as soon
 *   as a cap is passed) and refused over `maxEntries` / `maxBytes` with `too-large`, so a copy of a huge tree
 *   is an answer in bounded time rather than an exhausted disk. Free space is not checked: the FileSystem
 *   interface cannot tell it (a `statfs`-like capability would slot in here).
 * - All or nothing: a folder is copied under a temporary name beside the target and renamed into place only
 *   when complete, so `to` never holds a partial tree; a copy that fails midway (disk full, a name too long
 *   at the new depth, a file vanishing) removes what it wrote, and the folders it made for the target.
 *   A single file needs no staging: the backends copy files atomically already.
 * - Symlinks are copied as links with the same text, never followed (the measure does not follow them
 *   either), so a link out of the workspace copies as a link and nothing outside is read.
 * - The measure and the copy are two passes: a tree that grows in between is copied as it is then. The
 *   caps bound what a client can ask for, not a concurrent writer racing the copy.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { dirname } from '../../adapters/fs/posix-path.ts';
import { stagingName } from './staging-name.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import type { WorkspaceView } from '../agents/workspace-view.ts';
import { displayPath } from './display-path.ts';
import { measureTree, type TreeCaps } from './measure-tree.ts';
import { checkTransfer, landAt } from './transfer-checks.ts';

/** `from` and `to` are entry paths (core/tree-ops/resolve-entry.ts): the last segment is not followed. */
export async function copyEntry(view: WorkspaceView, from: string, to: string, caps: TreeCaps): Promise<void> {
  const { fs } = view;
  const label = (path: string) => displayPath(view.root, path);
  const source = await checkTransfer(fs, from, to, 'copy', label);
  const measure = await measureTree(fs, from, caps);
  if (measure.special !== undefined) {
    const path = label(measure.special);
    throw new WorkspaceError('bad-request', `cannot copy a special file (not a file, folder or link): ${path}`, { path });
  }
  if (measure.exceeded === 'entries') {
    throw new WorkspaceError(
      'too-large',
      `copy refused: ${label(from)} has more than ${caps.maxEntries} entries (the copy limit); nothing was copied`,
      { limit: caps.maxEntries, entries: measure.entries },
    );
  }
  if (measure.exceeded === 'bytes') {
    throw new WorkspaceError(
      'too-large',
      `copy refused: ${label(from)} holds more than ${caps.maxBytes} bytes (the copy limit); nothing was copied`,
      { limit: caps.maxBytes, bytes: measure.bytes },
    );
  }
  await landAt(fs, to, label, () => (source.type === 'dir' ? copyStaged(fs, from, to) : fs.copy(from, to)));
}

/** Copies the folder to a temporary sibling of `to`, then renames it into place; removes it on any failure. */
async function copyStaged(fs: FileSystem, from: string, to: string): Promise<void> {
  const staging = stagingName(dirname(to), 'copy');
  try {
    await fs.copy(from, staging);
    await fs.rename(staging, to); // no overwrite: a `to` created meanwhile is `exists`, and stays untouched
  } catch (error) {
    await fs.remove(staging, { recursive: true }).catch(() => {});
    throw error;
  }
}
