/**
 * The project model (./project-model.ts) over a FileSystem: edge-clean, so it works on every backend; only "is
 * the manager on PATH" needs a runtime with processes (a CommandLookup; absent → not on PATH).
 *
 * What is cached, and what drops it (the change feed, subscribed at first use; a `resync` frame or `invalidate()`
 * drops everything). Changes inside hidden folders (`.git` internals, `.agents`, `.intentic`) and the folders of
 * walk-rules.ts (`node_modules`, `.venv`, …) touch no cache, but for a `.git` entry itself (a repo appears or goes).
 * - the project walk (setup's list): any recipe file (package.json, a lockfile, a Python manifest) and any folder
 *   added or removed, ≤ 2 segments deep (a folder removal reports as the folder's path gone);
 * - each repo's packages (its package.json, workspace globs and members): a package.json or pnpm-workspace.yaml
 *   in or below it, or a folder added or removed below it;
 * - the modules of every repo: any package.json, any folder added or removed, and any change reported for a `.git`
 *   entry (a repo appearing or going; the git-state source reports a commit that way too, which costs one walk).
 * Not cached, because each is a handful of lstats and reads and what it depends on is partly unwatched
 * (`node_modules`): install states (install-state.ts) and the `_apps/*` half of the apps (find-apps.ts).
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import type { ChangeFeed, FeedFrame } from '../changes/change-feed.ts';
import { discoverRepos } from '../git/discover-repos.ts';
import type { CommandLookup } from './command-lookup.ts';
import { findApps } from './find-apps.ts';
import { findModules, type RepoModules } from './find-modules.ts';
import { findProjects, MAX_PROJECT_DEPTH, RECIPE_FILES } from './find-projects.ts';
import { entryType } from './fs-probe.ts';
import { declaringPackages, installState } from './install-state.ts';
import type { AppInfo, ProjectModel, ProjectRecipe } from './project-model.ts';
import { SKIPPED_FOLDER_NAMES } from './walk-rules.ts';
import { repoPackages as readRepoPackages, type RepoPackages } from './workspace-members.ts';

export interface ProjectModelOptions {
  fs: FileSystem;
  /** The workspace root, an absolute real path. */
  root: string;
  /** What keeps the caches honest. Without a feed, answers are cached until `invalidate()` (tests only). */
  changes?: ChangeFeed;
  /** Whether a manager is on PATH (Node: adapters/process/node-command-lookup.ts). */
  commands?: CommandLookup;
  /** Absolute folders no walk enters (the agents' copies). */
  exclude?: () => Promise<readonly string[]>;
  /** The templates source's keys, read at each `apps` call (a stamped kind counts while the source has it). */
  templateKeys?: () => Promise<ReadonlySet<string> | undefined>;
}

/** The model and what only the modules call reads (kept out of ProjectModel, which the job engine consumes). */
export interface WorkspaceProjectModel extends ProjectModel {
  /** `GET /workspace/modules`: `root` (the workspace without its repos) first, then each repo by id. */
  modules(): Promise<RepoModules[]>;
}

export function createProjectModel(options: ProjectModelOptions): WorkspaceProjectModel {
  const { fs, root, changes, commands } = options;
  let projectsCache: Promise<ProjectRecipe[]> | undefined;
  let modulesCache: Promise<RepoModules[]> | undefined;
  const packagesCache = new Map<string, Promise<RepoPackages>>();
  let subscribed = false;

  const excluded = async () => (options.exclude ? await options.exclude() : []);

  function dropAll(): void {
    projectsCache = undefined;
    modulesCache = undefined;
    packagesCache.clear();
  }

  /** Drops the packages of `dir` (absolute) and every folder above it. */
  function dropPackagesAbove(dir: string): void {
    for (const key of [...packagesCache.keys()]) if (dir === key || dir.startsWith(`${key}/`)) packagesCache.delete(key);
  }

  function watch(): void {
    if (subscribed || !changes) return;
    subscribed = true;
    const subscription = changes.subscribe({ under: root });
    void (async () => {
      for await (const frame of subscription) await onFrame(frame);
    })().catch(() => dropAll());
  }

  async function onFrame(frame: FeedFrame): Promise<void> {
    if (frame.kind === 'ready') return;
    if (frame.kind === 'resync') return dropAll();
    const path = frame.change.absolutePath;
    if (path === root || !path.startsWith(`${root === '/' ? '' : root}/`)) return;
    const segments = path.slice(root.length + (root === '/' ? 0 : 1)).split('/');
    const name = segments[segments.length - 1]!;
    const parent = path.slice(0, path.length - name.length - 1) || '/';
    if (name === '.git' && segments.slice(0, -1).every((segment) => visible(segment))) {
      modulesCache = undefined; // a repo appeared or went
      return;
    }
    if (!segments.every((segment) => visible(segment))) return;
    if (name === 'package.json') {
      projectsCache = undefined;
      modulesCache = undefined;
      dropPackagesAbove(parent);
    } else if (name === 'pnpm-workspace.yaml') {
      dropPackagesAbove(parent);
    } else if (RECIPE_FILES.has(name)) {
      projectsCache = undefined;
    } else if ('absent' in frame.change || (await entryType(fs, path)) === 'dir') {
      // A folder added or removed (a removed file lands here too: dropping on it costs one walk, never a wrong answer).
      if (segments.length <= MAX_PROJECT_DEPTH) projectsCache = undefined;
      modulesCache = undefined;
      dropPackagesAbove(parent);
    }
  }

  function visible(segment: string): boolean {
    return !segment.startsWith('.') && !SKIPPED_FOLDER_NAMES.has(segment);
  }

  function projects(): Promise<ProjectRecipe[]> {
    watch();
    projectsCache ??= excluded().then((exclude) => findProjects(fs, root, { exclude }));
    const current = projectsCache;
    current.catch(() => projectsCache === current && (projectsCache = undefined));
    return current;
  }

  function repoPackages(dir: string): Promise<RepoPackages> {
    watch();
    let entry = packagesCache.get(dir);
    if (!entry) {
      entry = readRepoPackages(fs, dir);
      packagesCache.set(dir, entry);
      entry.catch(() => packagesCache.get(dir) === entry && packagesCache.delete(dir));
    }
    return entry;
  }

  const absolute = (dir: string) => (dir === '' ? root : `${root === '/' ? '' : root}/${dir}`);

  return {
    projects,
    async installState(project) {
      const dir = absolute(project.dir);
      const { own, packages } = await repoPackages(dir);
      return installState(fs, dir, project, project.ecosystem === 'node' ? declaringPackages(own, packages) : [], commands);
    },
    async members(repoDir) {
      return (await repoPackages(repoDir)).packages;
    },
    async apps(repoDir): Promise<AppInfo[]> {
      const [{ packages }, all, templateKeys] = await Promise.all([repoPackages(repoDir), projects(), options.templateKeys?.()]);
      const repoRelative = repoDir === root ? '' : repoDir.slice(root.length + (root === '/' ? 0 : 1));
      return findApps(fs, { repoDir, repoRelative, packages, projects: all, templateKeys });
    },
    modules() {
      watch();
      modulesCache ??= (async () => {
        const exclude = await excluded();
        const repos = await discoverRepos(fs, root, { exclude: [...exclude] });
        const skip = new Set([...exclude, ...repos.map(absolute)]);
        const rootModules = await findModules(fs, root, { exclude: skip });
        const repoModules = await Promise.all(repos.map(async (repo) => ({ repo, modules: await findModules(fs, absolute(repo), { exclude: new Set(exclude) }) })));
        return [{ repo: 'root', modules: rootModules }, ...repoModules];
      })();
      const current = modulesCache;
      current.catch(() => modulesCache === current && (modulesCache = undefined));
      return current;
    },
    invalidate: dropAll,
  };
}
