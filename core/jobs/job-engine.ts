/**
 * The job engine (docs/intentic-projects.md#jobs-and-their-terminals): installs (setup's, dev servers' and add-apps jobs', all
 * through one queue per project: ./install-queue.ts), dev servers and test runs in named terminals
 * of the terminal manager, which a UI lists, attaches to and replays. Edge-clean; the Node-only powers (free
 * ports, process trees, probes, the children's environment) arrive as a JobHost. Handlers reach it as `ctx.jobs`.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import type { ProjectModel, ProjectRecipe } from '../projects/project-model.ts';
import type { RepoScope } from '../projects/repo-scope.ts';
import type { TerminalManager } from '../terminals/terminal-manager.ts';
import { createDevServers, type AppState } from './dev-servers.ts';
import { createInstallQueue, type InstallOptions } from './install-queue.ts';
import type { JobHost } from './job-host.ts';
import { createTestRuns } from './test-runs.ts';

export interface JobEngine {
  /** Setup's `installing`: the project at `dir` (root-relative) is queued, or its install terminal runs. */
  isInstalling(dir: string): boolean;
  /** `POST /workspace/setup/install` after its dirs were checked and normalised: the queued dirs. */
  install(dirs: readonly string[]): Promise<string[]>;
  /**
   * One install of `project` through the queue (an add-apps job's): in its install terminal, behind any other of
   * that project, setup saying `installing` meanwhile, whatever its state. Resolves with its exit code (null:
   * killed, timed out, aborted, or it could not start); never rejects.
   */
  installProject(project: ProjectRecipe, options?: InstallOptions): Promise<number | null>;
  apps(scope: RepoScope, requestHostname: string): Promise<AppState[]>;
  startApp(scope: RepoScope, app: string): Promise<void>;
  stopApp(scope: RepoScope, app: string): Promise<void>;
  runTests(scope: RepoScope, session: string, dirs: readonly string[]): Promise<void>;
  /** The daemon's shutdown: every dev server's tree and every install killed. */
  close(): Promise<void>;
}

export interface JobEngineOptions {
  fs: FileSystem;
  /** The workspace root, a real path. */
  root: string;
  terminals: TerminalManager;
  projects: ProjectModel;
  host: JobHost;
  /** An install is killed after this long (seed: 30 min). */
  installTimeoutMs: number;
  previewUrl?: string;
}

export function createJobEngine(options: JobEngineOptions): JobEngine {
  const installs = createInstallQueue({ ...options, timeoutMs: options.installTimeoutMs });
  const devServers = createDevServers({ ...options, installs });
  const testRuns = createTestRuns(options);
  return {
    isInstalling: installs.isInstalling,
    install: (dirs) => installs.request(dirs),
    installProject: (project, installOptions) => installs.install(project, installOptions),
    apps: (scope, hostname) => devServers.list(scope, hostname),
    startApp: (scope, app) => devServers.start(scope, app),
    stopApp: (scope, app) => devServers.stop(scope, app),
    runTests: (scope, session, dirs) => testRuns.start(scope, session, dirs),
    async close() {
      await Promise.all([devServers.close(), installs.close()]);
    },
  };
}
