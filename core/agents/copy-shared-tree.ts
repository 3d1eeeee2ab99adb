/**
 * The plain copy an agent gets where there is no git worktree to give it (no git repository, no commit yet,
 * or a runtime without git): the shared tree copied through the FileSystem, minus what tooling ignores —
 * `.git`, package stores, virtual environments and `.gitignore` matches (core/ignore) — and minus the agents
 * folder. What is left out is not lost to the agent: the overlay falls back to the shared tree for it, just as
 * it does for a worktree's untracked files.
 *
 * Bounded: the tree is surveyed first and refused (`too-large`, nothing written) past the entry or byte caps,
 * so an agent copy can never fill the disk; the plan it copies from holds at most `maxEntries` entries.
 */
import type { FileSystem, FileType } from '../../adapters/fs/file-system.ts';
import { isInside, join } from '../../adapters/fs/posix-path.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import { createIgnoreRules } from '../ignore/ignore-rules.ts';
import { holdsVirtualenvMarker } from '../ignore/package-stores.ts';

export interface CopyCaps {
  maxEntries: number;
  maxBytes: number;
}

interface Planned {
  /** Root-relative, '/'-separated. */
  rel: string;
  type: FileType;
}

/** Copies the tree at `root` to `to` (which must not exist), leaving out `skip` and what is ignored. */
export async function copySharedTree(
  fs: FileSystem,
  root: string,
  to: string,
  options: { skip: string; caps: CopyCaps },
): Promise<{ entries: number; bytes: number }> {
  const { plan, bytes } = await planCopy(fs, root, options.skip, options.caps);
  await fs.mkdir(to);
  // Breadth-first: every folder is planned before what it holds.
  for (const { rel, type } of plan) {
    if (type === 'dir') await fs.mkdir(join(to, rel));
    else await fs.copy(join(root, rel), join(to, rel)); // files keep their modes; links stay links
  }
  return { entries: plan.length, bytes };
}

async function planCopy(
  fs: FileSystem,
  root: string,
  skip: string,
  caps: CopyCaps,
): Promise<{ plan: Planned[]; bytes: number }> {
  const rules = createIgnoreRules(fs, root);
  const plan: Planned[] = [];
  let bytes = 0;
  const count = (planned: Planned, size: number) => {
    plan.push(planned);
    bytes += size;
    if (plan.length > caps.maxEntries) throw tooLarge(`more than ${caps.maxEntries} entries`, caps);
    if (bytes > caps.maxBytes) throw tooLarge(`more than ${caps.maxBytes} bytes`, caps);
  };
  const folders = [''];
  while (folders.length > 0) {
    const relDir = folders.shift()!;
    const entries = await fs.readdir(relDir === '' ? root : join(root, relDir));
    if (relDir !== '' && holdsVirtualenvMarker(entries)) continue; // a Python venv: installed packages
    if (relDir !== '') count({ rel: relDir, type: 'dir' }, 0);
    const matcher = await rules.folder(relDir, { gitignore: entries.some((e) => e.name === '.gitignore' && e.type === 'file') });
    for (const entry of entries) {
      const rel = relDir === '' ? entry.name : `${relDir}/${entry.name}`;
      const path = join(root, rel);
      if (isInside(skip, path) || matcher.ignores(entry.name, entry.type === 'dir')) continue;
      if (entry.type === 'dir') folders.push(rel);
      else if (entry.type === 'file') count({ rel, type: 'file' }, (await fs.lstat(path)).size);
      else if (entry.type === 'symlink') count({ rel, type: 'symlink' }, 0);
      // FIFOs, sockets and devices cannot be copied; the overlay serves them from the shared tree.
    }
  }
  return { plan, bytes };
}

function tooLarge(what: string, caps: CopyCaps): WorkspaceError {
  return new WorkspaceError(
    'too-large',
    `the workspace is too large for an agent copy (${what}; ignored folders are not copied)`,
    { maxEntries: caps.maxEntries, maxBytes: caps.maxBytes },
  );
}
