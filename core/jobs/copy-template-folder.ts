/**
 * Copies one template folder into a repo for an add-apps job (docs/intentic-projects.md#add-apps `POST …/apps`): everything but
 * `node_modules`, `.git` and `dist` (installed packages, VCS data, build output are never part of a template),
 * links copied as links with the same text (never followed, so nothing outside the source is read). The copy is
 * made in a hidden staging folder beside the target and renamed into place once complete, after `prepare` has
 * edited it (the app's package.json), so the repo never shows half an app under its name; a failure removes it.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { dirname, join } from '../../adapters/fs/posix-path.ts';
import { compareCodeUnits } from '../text/code-units.ts';
import { stagingName } from '../tree-ops/staging-name.ts';

export const SKIPPED_IN_COPIES: ReadonlySet<string> = new Set(['node_modules', '.git', 'dist']);

export async function copyTemplateFolder(
  fs: FileSystem,
  from: string,
  to: string,
  prepare?: (staged: string) => Promise<void>,
): Promise<void> {
  const parent = dirname(to);
  await fs.mkdir(parent, { recursive: true });
  const staging = stagingName(parent, 'add-app');
  try {
    await copyInto(fs, from, staging);
    await prepare?.(staging);
    await fs.rename(staging, to); // no overwrite: a `to` made meanwhile is `exists`, and stays untouched
  } catch (error) {
    await fs.remove(staging, { recursive: true }).catch(() => {});
    throw error;
  }
}

async function copyInto(fs: FileSystem, from: string, to: string): Promise<void> {
  await fs.mkdir(to);
  const entries = await fs.readdir(from);
  entries.sort((a, b) => compareCodeUnits(a.name, b.name));
  for (const entry of entries) {
    if (SKIPPED_IN_COPIES.has(entry.name)) continue;
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.type === 'dir') await copyInto(fs, source, target);
    else if (entry.type === 'file') await fs.copy(source, target);
    else if (entry.type === 'symlink') await fs.symlink(await fs.readlink(source), target);
    // Sockets, FIFOs and devices are no template's content: left out.
  }
}
