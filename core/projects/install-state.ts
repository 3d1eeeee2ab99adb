/**
 * A project's setup state, but `installing` (the job engine knows that): docs/intentic-projects.md#setup.
 * First that holds: the marker (`node_modules`, `.venv`) is present → Python `ready`, Node `ready` when every
 * declared dependency resolves, else `stale` with `missing`; a Node project whose packages declare nothing →
 * `ready`; the manager on PATH → `needs-setup`; else `unsupported`.
 *
 * Declared: the keys of `dependencies` and `devDependencies` of the project's own package.json and of each of its
 * workspace members. A name resolves when an entry `node_modules/<name>` exists (a listing: a pnpm or npm link counts,
 * and nothing is followed) in the package's folder or one above it, up to the project. `missing` sums the
 * unresolved names over the packages (a name missing in two packages counts twice).
 *
 * Nothing of this is cached by the model: it is one listing per `node_modules` folder involved, and `node_modules`
 * is exactly what the OS watcher does not watch, so a cache here could not be kept honest.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import type { CommandLookup } from './command-lookup.ts';
import type { PackageInfo, ProjectRecipe, SetupState } from './project-model.ts';
import { entryType, sortedEntries } from './fs-probe.ts';
import { dependencyNames, type Manifest } from './package-manifest.ts';

export type InstallState = { state: Exclude<SetupState, 'installing'>; missing?: number };

/** The declaring packages of a Node project: its own package.json (dir `""`) and its workspace members. */
export interface DeclaringPackage {
  /** Project-relative. */
  dir: string;
  manifest: Manifest;
}

export async function installState(
  fs: FileSystem,
  projectDir: string,
  project: ProjectRecipe,
  packages: readonly DeclaringPackage[],
  commands: CommandLookup | undefined,
): Promise<InstallState> {
  const declared = packages.map(({ dir, manifest }) => ({
    dir,
    names: [...new Set([...dependencyNames(manifest, 'dependencies'), ...dependencyNames(manifest, 'devDependencies')])],
  }));
  if ((await entryType(fs, `${projectDir}/${project.marker}`)) !== undefined) {
    if (project.ecosystem === 'python') return { state: 'ready' };
    const installed = new InstalledNames(fs);
    let missing = 0;
    for (const { dir, names } of declared) {
      for (const name of names) if (!(await resolves(installed, projectDir, dir, name))) missing++;
    }
    return missing === 0 ? { state: 'ready' } : { state: 'stale', missing };
  }
  if (project.ecosystem === 'node' && declared.every(({ names }) => names.length === 0)) return { state: 'ready' };
  return (await commands?.hasCommand(project.manager)) ? { state: 'needs-setup' } : { state: 'unsupported' };
}

/**
 * The entry names of `node_modules` folders (and their `@scope` folders), each folder listed once per state read:
 * a monorepo of 500 packages declaring a dozen names each asks about every folder many times. A listing holds
 * links and dangling links too, as an lstat would.
 */
class InstalledNames {
  readonly #listings = new Map<string, Promise<Set<string>>>();
  constructor(private readonly fs: FileSystem) {}

  has(folder: string, name: string): Promise<boolean> {
    const slash = name.indexOf('/');
    const [listed, entry] = slash < 0 ? [`${folder}/node_modules`, name] : [`${folder}/node_modules/${name.slice(0, slash)}`, name.slice(slash + 1)];
    return this.#names(listed).then((names) => names.has(entry));
  }

  #names(folder: string): Promise<Set<string>> {
    let names = this.#listings.get(folder);
    if (!names) {
      names = listNames(this.fs, folder);
      this.#listings.set(folder, names);
    }
    return names;
  }
}

async function listNames(fs: FileSystem, folder: string): Promise<Set<string>> {
  // Only a real folder is listed: a `node_modules` link is not entered (the walk never follows links).
  if ((await entryType(fs, folder)) !== 'dir') return new Set();
  return new Set((await sortedEntries(fs, folder)).map((entry) => entry.name));
}

/** A name that is one folder of node_modules (`x`) or a scope and one folder (`@s/x`), never `.`/`..`. */
const PACKAGE_NAME = /^(?:@(?!\.\.?\/)[^/\\\0]+\/)?(?!\.\.?$)[^/\\\0@][^/\\\0]*$/;

/** Whether `node_modules/<name>` exists in `dir` (project-relative) or a folder above it, up to the project. */
async function resolves(installed: InstalledNames, projectDir: string, dir: string, name: string): Promise<boolean> {
  if (!PACKAGE_NAME.test(name)) return false; // `../x` and the like name no folder of node_modules
  const segments = dir === '' ? [] : dir.split('/');
  for (let depth = segments.length; depth >= 0; depth--) {
    if (await installed.has([projectDir, ...segments.slice(0, depth)].join('/'), name)) return true;
  }
  return false;
}

/** The project's own package and its members, as install state reads them (members keep their manifests). */
export function declaringPackages(own: Manifest | undefined, members: readonly PackageInfo[]): DeclaringPackage[] {
  const packages: DeclaringPackage[] = own ? [{ dir: '', manifest: own }] : [];
  for (const member of members) if (member.dir !== '') packages.push({ dir: member.dir, manifest: member.manifest });
  return packages;
}
