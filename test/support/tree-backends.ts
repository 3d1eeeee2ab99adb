/**
 * The same tree built on both backends: a temp folder through NodeFileSystem, and a MemoryFileSystem at /ws.
 * A spec maps root-relative paths to file contents, `{ link: target }` for a symlink (target verbatim), or
 * `{ dir: true }` for an empty folder.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../adapters/fs/memory-file-system.ts';
import { NodeFileSystem } from '../../adapters/fs/node-file-system.ts';
import { dirname } from '../../adapters/fs/posix-path.ts';
import { createWorkspaceApp, type WorkspaceApp, type WorkspaceAppOptions } from '../../runtime/app.ts';
import { TEST_TOKEN } from './workspace.ts';

export type Spec = Record<string, string | { link: string } | { dir: true }>;

export interface BuiltTree {
  fs: FileSystem;
  /** The real root. */
  root: string;
  cleanup(): Promise<void>;
}

export async function buildTree(fs: FileSystem, root: string, spec: Spec): Promise<void> {
  for (const [rel, what] of Object.entries(spec)) {
    const path = `${root}/${rel}`;
    await fs.mkdir(dirname(path), { recursive: true });
    if (typeof what === 'string') await fs.write(path, what);
    else if ('link' in what) await fs.symlink(what.link, path);
    else await fs.mkdir(path, { recursive: true });
  }
}

export const BACKENDS: readonly [string, (spec: Spec) => Promise<BuiltTree>][] = [
  [
    'node',
    async (spec) => {
      const root = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-tree-')));
      const fs = new NodeFileSystem();
      await buildTree(fs, root, spec);
      return { fs, root, cleanup: () => rm(root, { recursive: true, force: true }) };
    },
  ],
  [
    'memory',
    async (spec) => {
      const fs = new MemoryFileSystem();
      await fs.mkdir('/ws');
      await buildTree(fs, '/ws', spec);
      return { fs, root: '/ws', cleanup: async () => {} };
    },
  ],
];

/** The app over a built tree, token auth with TEST_TOKEN. */
export function appOver(built: BuiltTree, overrides: Partial<WorkspaceAppOptions> = {}): WorkspaceApp {
  return createWorkspaceApp({ fs: built.fs, root: built.root, auth: { token: TEST_TOKEN }, ...overrides });
}
