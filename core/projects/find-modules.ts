/**
 * `GET /workspace/modules` (docs/intentic-projects.md#modules): per repo, the folders 1–4 segments below it whose package.json
 * names them (a non-empty string). The walk goes on below a package (packages nest) but never into a nested repo
 * (a folder holding `.git`), a link, a hidden folder or the folders of walk-rules.ts. None found: the repo's own
 * named package.json gives `[{dir: "", name}]`. `root` is the workspace without its repos.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { childPath, childRelative, entryType, sortedEntries } from './fs-probe.ts';
import { packageName, readManifest } from './package-manifest.ts';
import { isWalkedFolder } from './walk-rules.ts';

/** Deepest module folder, in segments below its repo. */
export const MAX_MODULE_DEPTH = 4;

export interface RepoModules {
  repo: string;
  modules: Array<{ dir: string; name: string }>;
}

/** The modules of the repo at `repoDir` (absolute), sorted by repo-relative dir. */
export async function findModules(fs: FileSystem, repoDir: string, options: { exclude?: ReadonlySet<string> } = {}): Promise<RepoModules['modules']> {
  const modules: RepoModules['modules'] = [];
  async function visit(abs: string, rel: string, depth: number): Promise<void> {
    for (const entry of await sortedEntries(fs, abs)) {
      if (entry.type !== 'dir' || !isWalkedFolder(entry.name, { hidden: false })) continue;
      const child = childPath(abs, entry.name);
      if (options.exclude?.has(child) || (await holdsGit(fs, child))) continue;
      const childRel = childRelative(rel, entry.name);
      const name = packageName(await readManifest(fs, child));
      if (name !== undefined) modules.push({ dir: childRel, name });
      if (depth + 1 < MAX_MODULE_DEPTH) await visit(child, childRel, depth + 1);
    }
  }
  await visit(repoDir, '', 0);
  if (modules.length > 0) return modules.sort((a, b) => (a.dir < b.dir ? -1 : a.dir > b.dir ? 1 : 0));
  const own = packageName(await readManifest(fs, repoDir));
  return own === undefined ? [] : [{ dir: '', name: own }];
}

async function holdsGit(fs: FileSystem, folder: string): Promise<boolean> {
  const type = await entryType(fs, `${folder}/.git`);
  return type === 'dir' || type === 'file';
}
