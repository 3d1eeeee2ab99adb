/**
 * The apps of a repo (docs/intentic-projects.md#apps): a package with a string `name` and a string `dev` script,
 * among the repo's packages (its workspace members, or the repo folder when it is one package) and the folders
 * right under `_apps/`. `app` is its folder's name (the repo folder's, for the repo itself); names not matching
 * APP_NAME are left out; where two folders give one name, the first by dir wins. Sorted by app.
 *
 * `kind`: the template key stamped by add-apps (`"intentic": {"template": key}`) while the templates source has
 * that key; else the first framework of FRAMEWORKS in `dependencies` or `devDependencies`; else absent.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import type { AppInfo, PackageInfo, ProjectRecipe } from './project-model.ts';
import { compareCodeUnits } from '../text/code-units.ts';
import { childRelative, entryType, sortedEntries } from './fs-probe.ts';
import { dependencyNames, isRecord, packageName, readManifest, scriptOf, type Manifest } from './package-manifest.ts';
import { isWalkedFolder } from './walk-rules.ts';

export const APP_NAME = /^[a-z][a-z0-9-]*$/;
/** The folder whose children are apps whatever the workspace globs say. */
export const APPS_FOLDER = '_apps';

const FRAMEWORKS: ReadonlyArray<readonly [dependency: string, kind: string]> = [
  ['astro', 'astro'],
  ['next', 'next'],
  ['nuxt', 'nuxt'],
  ['@sveltejs/kit', 'svelte'],
  ['vite', 'vite'],
];

export interface FindAppsInput {
  repoDir: string;
  /** The repo folder relative to the root (`""` for the workspace). */
  repoRelative: string;
  /** The repo's packages (workspace-members.ts `repoPackages`). */
  packages: readonly PackageInfo[];
  /** Every project of setup, to say which one installs each app. */
  projects: readonly ProjectRecipe[];
  /** The templates source's keys; undefined when unknown (a stamp is then taken as it is). */
  templateKeys: ReadonlySet<string> | undefined;
}

export async function findApps(fs: FileSystem, input: FindAppsInput): Promise<AppInfo[]> {
  const candidates = new Map<string, Manifest>();
  for (const pkg of input.packages) candidates.set(pkg.dir, pkg.manifest);
  // `_apps` itself must be a real folder: a link there would lead outside the workspace.
  const appsFolder = (await entryType(fs, `${input.repoDir}/${APPS_FOLDER}`)) === 'dir' ? `${input.repoDir}/${APPS_FOLDER}` : undefined;
  for (const entry of appsFolder ? await sortedEntries(fs, appsFolder) : []) {
    if (entry.type !== 'dir' || !isWalkedFolder(entry.name, { hidden: false })) continue;
    const dir = `${APPS_FOLDER}/${entry.name}`;
    if (candidates.has(dir)) continue;
    const manifest = await readManifest(fs, `${input.repoDir}/${dir}`);
    if (manifest) candidates.set(dir, manifest);
  }
  const repoFolderName = input.repoDir.split('/').pop() ?? '';
  const apps = new Map<string, AppInfo>();
  for (const dir of [...candidates.keys()].sort(compareCodeUnits)) {
    const manifest = candidates.get(dir)!;
    if (packageName(manifest) === undefined || scriptOf(manifest, 'dev') === undefined) continue;
    const app = dir === '' ? repoFolderName : dir.split('/').pop()!;
    if (!APP_NAME.test(app) || apps.has(app)) continue;
    const rootDir = dir === '' ? input.repoRelative : childRelative(input.repoRelative, dir);
    const info: AppInfo = { app, dir: rootDir, project: installingProject(input.projects, rootDir) };
    const kind = kindOf(manifest, input.templateKeys);
    if (kind !== undefined) info.kind = kind;
    apps.set(app, info);
  }
  return [...apps.values()].sort((a, b) => compareCodeUnits(a.app, b.app));
}

function kindOf(manifest: Manifest, templateKeys: ReadonlySet<string> | undefined): string | undefined {
  const stamp = isRecord(manifest.intentic) ? manifest.intentic.template : undefined;
  if (typeof stamp === 'string' && (templateKeys === undefined || templateKeys.has(stamp))) return stamp;
  const names = new Set([...dependencyNames(manifest, 'dependencies'), ...dependencyNames(manifest, 'devDependencies')]);
  return FRAMEWORKS.find(([dependency]) => names.has(dependency))?.[1];
}

/** The deepest project at or above `dir` (root-relative). */
function installingProject(projects: readonly ProjectRecipe[], dir: string): ProjectRecipe | undefined {
  let best: ProjectRecipe | undefined;
  for (const project of projects) {
    const covers = project.dir === '' || dir === project.dir || dir.startsWith(`${project.dir}/`);
    if (covers && (best === undefined || project.dir.length > best.dir.length)) best = project;
  }
  return best;
}
