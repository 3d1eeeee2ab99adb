/**
 * The project model's API (docs/intentic-projects.md): what the workspace's projects, packages and apps are, read from
 * their manifests. Implemented by ./create-project-model.ts (edge-clean: the FileSystem; refreshed by the change
 * feed, so a big tree is not walked again on every call). The job engine (core/jobs: installs, dev servers, test
 * runs, add-apps) and the handlers read it; nothing here runs a process.
 */

export type Ecosystem = 'node' | 'python';
export type SetupState = 'ready' | 'installing' | 'needs-setup' | 'unsupported' | 'stale';

/** One project of `GET /workspace/setup`, before its state: how its dependencies get installed. */
export interface ProjectRecipe {
  /** Root-relative (`""` for the workspace project). */
  dir: string;
  ecosystem: Ecosystem;
  /** npm, pnpm, yarn, bun; uv, poetry, pipenv, python3. */
  manager: string;
  /** The install command, run through the shell in the project's folder. */
  command: string;
  evidence: string;
  /** The folder whose presence means "installed": `node_modules` or `.venv`. */
  marker: string;
}

/** A workspace member (graph rules): a parseable package.json with a string `name`. */
export interface PackageInfo {
  name: string;
  /** Repo-relative (`""` for the repo's own package). */
  dir: string;
  /** The parsed package.json. */
  manifest: Record<string, unknown>;
}

/** An app of `GET /workspace/repos/{repo}/apps`, before its running state. */
export interface AppInfo {
  /** Its folder's name (the repo's, for a one-package repo); matches `^[a-z][a-z0-9-]*$`. */
  app: string;
  /** Root-relative folder. */
  dir: string;
  /** The stamped template key, else the framework found in its dependencies; absent when neither. */
  kind?: string;
  /** The project that installs it (its manager runs `run dev`). */
  project: ProjectRecipe | undefined;
}

export interface ProjectModel {
  /** Every project (≤ 2 segments deep), sorted by dir. */
  projects(): Promise<ProjectRecipe[]>;
  /** A project's state, but `installing` (the job engine knows that) — with `missing` on `stale`. */
  installState(project: ProjectRecipe): Promise<{ state: Exclude<SetupState, 'installing'>; missing?: number }>;
  /** The members of the repo at `repoDir` (absolute), by the graph rules; sorted by dir. */
  members(repoDir: string): Promise<PackageInfo[]>;
  /** The apps of the repo at `repoDir` (absolute), sorted by app. */
  apps(repoDir: string): Promise<AppInfo[]>;
  /** Forget what is cached (tests; the change feed does this on its own). */
  invalidate(): void;
}
