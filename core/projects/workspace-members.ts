/**
 * Workspace members, as the managers read their globs (docs/intentic-projects.md#graph): the
 * `packages` of `pnpm-workspace.yaml`, else `package.json`'s `workspaces` (an array, or `{packages}` as yarn and
 * npm also accept). `*` is one segment, `**` any depth, a leading `!` excludes; picomatch matches and the `yaml`
 * package parses, as the managers' own libraries do. A member is a folder with a parseable `package.json` whose
 * `name` is a string; the first of a name (in folder order) wins. The walk enters real folders only (never a link,
 * so nothing outside the workspace is reached), not hidden ones (a glob's `*` does not match them either) and not
 * the folders of walk-rules.ts.
 */
import picomatch from 'picomatch/posix.js';
import { parse as parseYaml } from 'yaml';
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import type { PackageInfo } from './project-model.ts';
import { compareCodeUnits } from '../text/code-units.ts';
import { childPath, childRelative, sortedEntries } from './fs-probe.ts';
import { isRecord, packageName, readManifest, readRegularText, type Manifest } from './package-manifest.ts';
import { isWalkedFolder } from './walk-rules.ts';

/** Folders one member lookup reads at most (a `**` over a huge tree stops here). */
export const MAX_MEMBER_FOLDERS = 20_000;

/** The member globs of the repo at `repoDir` (absolute), or undefined when it declares no workspace. */
export async function workspaceGlobs(fs: FileSystem, repoDir: string, manifest?: Manifest): Promise<string[] | undefined> {
  const yamlText = await readRegularText(fs, `${repoDir}/pnpm-workspace.yaml`);
  if (yamlText !== undefined) {
    const packages = yamlPackages(yamlText);
    if (packages !== undefined) return packages;
  }
  const workspaces = (manifest ?? (await readManifest(fs, repoDir)))?.workspaces;
  const list = Array.isArray(workspaces) ? workspaces : isRecord(workspaces) ? workspaces.packages : undefined;
  return Array.isArray(list) ? list.filter((glob): glob is string => typeof glob === 'string') : undefined;
}

function yamlPackages(text: string): string[] | undefined {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch {
    return undefined; // pnpm would refuse it; we fall back to package.json's `workspaces`
  }
  const packages = isRecord(document) ? document.packages : undefined;
  return Array.isArray(packages) ? packages.filter((glob): glob is string => typeof glob === 'string') : undefined;
}

/** The members the globs name under `repoDir`, sorted by repo-relative dir. */
export async function findMembers(fs: FileSystem, repoDir: string, globs: readonly string[]): Promise<PackageInfo[]> {
  const { include, exclude } = splitGlobs(globs);
  if (include.length === 0) return [];
  const included = picomatch(include);
  const excluded = exclude.length > 0 ? picomatch(exclude) : () => false;
  const candidates = new Set<string>();
  const budget = { folders: MAX_MEMBER_FOLDERS };
  for (const glob of include) {
    const { base, glob: rest } = picomatch.scan(glob);
    if (rest === '') {
      candidates.add(base);
      continue;
    }
    const depth = rest.split('/').includes('**') || rest.includes('**') ? Infinity : rest.split('/').length;
    await collectFolders(fs, repoDir, base, depth, candidates, budget);
  }
  const members: PackageInfo[] = [];
  const names = new Set<string>();
  for (const dir of [...candidates].sort(compareCodeUnits)) {
    if (dir === '' || !included(dir) || excluded(dir)) continue;
    const manifest = await readManifest(fs, `${repoDir}/${dir}`);
    const name = packageName(manifest);
    if (name === undefined || names.has(name)) continue;
    names.add(name);
    members.push({ name, dir, manifest: manifest! });
  }
  return members;
}

/** Globs as the managers take them: `./a/` is `a`; `!` excludes; one leaving the repo (`..`, `/…`) names nothing. */
function splitGlobs(globs: readonly string[]): { include: string[]; exclude: string[] } {
  const include: string[] = [];
  const exclude: string[] = [];
  for (const raw of globs) {
    const negated = raw.startsWith('!');
    const glob = (negated ? raw.slice(1) : raw).replace(/^(\.\/)+/, '').replace(/\/+$/, '');
    if (glob === '' || glob.startsWith('/') || glob.split('/').includes('..')) continue;
    (negated ? exclude : include).push(glob);
  }
  return { include, exclude };
}

/** Every walkable folder below `base` (repo-relative), down to `depth` more segments, into `out`. */
async function collectFolders(
  fs: FileSystem,
  repoDir: string,
  base: string,
  depth: number,
  out: Set<string>,
  budget: { folders: number },
): Promise<void> {
  // The base itself must be real folders all the way down (a link in it would lead outside).
  let dir = repoDir;
  for (const segment of base === '' ? [] : base.split('/')) {
    const entries = await sortedEntries(fs, dir);
    const entry = entries.find((candidate) => candidate.name === segment);
    if (entry?.type !== 'dir') return;
    dir = childPath(dir, segment);
  }
  const queue: Array<{ rel: string; abs: string; left: number }> = [{ rel: base, abs: dir, left: depth }];
  while (queue.length > 0 && budget.folders > 0) {
    const { rel, abs, left } = queue.shift()!;
    budget.folders--;
    for (const entry of await sortedEntries(fs, abs)) {
      if (entry.type !== 'dir' || !isWalkedFolder(entry.name, { hidden: false })) continue;
      const childRel = childRelative(rel, entry.name);
      out.add(childRel);
      if (left > 1) queue.push({ rel: childRel, abs: childPath(abs, entry.name), left: left - 1 });
    }
  }
}

/** A folder's own package.json and the graph's packages of it. */
export interface RepoPackages {
  own: Manifest | undefined;
  /** Its members when it declares a workspace, else its own named package.json as the one package `""`, else none. */
  packages: PackageInfo[];
}

export async function repoPackages(fs: FileSystem, repoDir: string): Promise<RepoPackages> {
  const own = await readManifest(fs, repoDir);
  const globs = await workspaceGlobs(fs, repoDir, own);
  if (globs !== undefined) return { own, packages: await findMembers(fs, repoDir, globs) };
  const name = packageName(own);
  return { own, packages: name === undefined ? [] : [{ name, dir: '', manifest: own! }] };
}
