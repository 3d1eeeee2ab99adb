/**
 * Dev servers (docs/intentic-projects.md#start-and-stop `…/apps/{app}/start|stop`, `GET …/apps`): `<manager> run dev` in the app's
 * folder, in `panel-<r>--<app>`, with `PORT` a free port; first the project's install (through the install queue,
 * so it runs in the project's install terminal, one at a time, and setup shows `installing`) when the project has
 * no `node_modules`. Stop kills the terminal's whole process tree (SIGTERM, SIGKILL after 3 s), also what left
 * its process group, and resolves once all of it is gone, so the port is free.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { join } from '../../adapters/fs/posix-path.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import type { AppInfo, ProjectModel } from '../projects/project-model.ts';
import type { RepoScope } from '../projects/repo-scope.ts';
import type { TerminalManager } from '../terminals/terminal-manager.ts';
import type { InstallQueue } from './install-queue.ts';
import type { JobHost } from './job-host.ts';
import { shellQuote } from '../shell-quote.ts';
import { devTerminalName, installTerminalName, repoKey } from './job-names.ts';
import { startJobTerminal } from './job-terminal.ts';

export const APP_NAME = /^[a-z][a-z0-9-]*$/;
/** docs/intentic-projects.md#start-and-stop: TERM, then KILL after 3 s. */
export const STOP_GRACE_MS = 3000;
/** docs/intentic-projects.md#apps: `healthy` = any HTTP answer within 1.5 s. */
export const PROBE_TIMEOUT_MS = 1500;

export interface AppState {
  app: string;
  running: boolean;
  healthy: boolean;
  kind?: string;
  previewUrl?: string;
}

export interface DevServersOptions {
  fs: FileSystem;
  root: string;
  terminals: TerminalManager;
  projects: ProjectModel;
  host: JobHost;
  installs: InstallQueue;
  /** `--preview-url`: `{repo}` `{app}` `{panel}` (= `<r>--<app>`) `{port}`; else `http://<request host>:<port>/`. */
  previewUrl?: string;
}

export interface DevServers {
  list(scope: RepoScope, requestHostname: string): Promise<AppState[]>;
  /** NOT_FOUND for an unknown app; resolves once the dev terminal started (or its install was queued). */
  start(scope: RepoScope, app: string): Promise<void>;
  /** Resolves once the app's process tree is gone; also when nothing ran. */
  stop(scope: RepoScope, app: string): Promise<void>;
  /** Stops every dev server (the daemon's shutdown). */
  close(): Promise<void>;
}

interface Starting {
  cancelled: boolean;
  done: Promise<void>;
}

export function createDevServers(options: DevServersOptions): DevServers {
  const { fs, root, terminals, projects, host, installs } = options;
  /** By terminal name: the PORT its dev server was given. */
  const ports = new Map<string, number>();
  /** By terminal name: starts waiting for their project's install. */
  const starting = new Map<string, Starting>();
  let closed = false;

  const abs = (dir: string) => (dir === '' ? root : join(root, dir));

  async function findApp(scope: RepoScope, app: string): Promise<AppInfo> {
    if (!APP_NAME.test(app)) throw new WorkspaceError('bad-request', `invalid app name ${JSON.stringify(app)}: it must match ^[a-z][a-z0-9-]*$`, { app });
    const found = (await projects.apps(scope.dir)).find((candidate) => candidate.app === app);
    if (!found) throw new WorkspaceError('not-found', `no app named "${app}" in repo "${scope.id}"`, { app, repo: scope.id });
    return found;
  }

  async function exists(path: string): Promise<boolean> {
    try {
      await fs.stat(path);
      return true;
    } catch {
      return false;
    }
  }

  async function launch(name: string, info: AppInfo): Promise<void> {
    const cwd = abs(info.dir);
    const manager = info.project?.ecosystem === 'node' ? info.project.manager : 'npm';
    const port = await host.freePort();
    const session = await startJobTerminal(terminals, {
      name,
      command: `${manager} run dev`,
      cwd,
      env: host.env(cwd, { PORT: String(port) }),
    });
    if (session) ports.set(name, port);
  }

  /** The dev terminal says why it did not start (the install's own terminal has the details). */
  async function reportFailedInstall(name: string, info: AppInfo, code: number | null): Promise<void> {
    const cwd = abs(info.dir);
    const why = `the install of ${JSON.stringify(info.project?.dir ?? '')} failed (${code === null ? 'stopped' : `exit code ${code}`}); see ${installTerminalName(info.project?.dir ?? '')}`;
    await startJobTerminal(terminals, { name, command: `echo ${shellQuote(why)}; exit 1`, cwd, env: host.env(cwd) });
  }

  async function stopTree(name: string): Promise<void> {
    // A start still waiting for its install does not launch (the install itself runs on: setup asked for it too).
    const record = starting.get(name);
    if (record) record.cancelled = true;
    const session = terminals.get(name);
    if (session?.running) {
      await host.killTree(session.pid, { graceMs: STOP_GRACE_MS });
      await session.kill();
    }
    ports.delete(name);
  }

  function fill(pattern: string, scope: RepoScope, app: string, port: number): string {
    const values: Record<string, string> = { repo: scope.id, app, panel: `${repoKey(scope.id)}--${app}`, port: String(port) };
    return pattern.replace(/\{(repo|app|panel|port)\}/g, (_, key: string) => values[key]!);
  }

  return {
    async list(scope, requestHostname) {
      const apps = await projects.apps(scope.dir);
      return Promise.all(
        apps.map(async (info): Promise<AppState> => {
          const name = devTerminalName(scope.id, info.app);
          const running = terminals.get(name)?.running === true;
          const port = running ? ports.get(name) : undefined;
          const healthy = port !== undefined && (await host.probe(port, PROBE_TIMEOUT_MS));
          const state: AppState = { app: info.app, running, healthy };
          if (info.kind !== undefined) state.kind = info.kind;
          if (port !== undefined) {
            state.previewUrl = options.previewUrl ? fill(options.previewUrl, scope, info.app, port) : `http://${requestHostname}:${port}/`;
          }
          return state;
        }),
      );
    },

    async start(scope, app) {
      const info = await findApp(scope, app);
      if (closed) throw new WorkspaceError('conflict', 'the daemon is shutting down');
      const name = devTerminalName(scope.id, app);
      if (terminals.get(name)?.running || starting.has(name)) return; // a running app is left alone
      const project = info.project;
      const needsInstall = project !== undefined && project.ecosystem === 'node' && !(await exists(join(abs(project.dir), 'node_modules')));
      if (!needsInstall) {
        await launch(name, info);
        return;
      }
      const record: Starting = { cancelled: false, done: Promise.resolve() };
      record.done = (async () => {
        const code = await installs.install(project);
        if (record.cancelled || closed) return;
        if (code === 0) await launch(name, info);
        else await reportFailedInstall(name, info, code);
        if (record.cancelled) await stopTree(name); // stopped while it was launching

      })()
        .catch((error: unknown) => console.error(`workspace-api: app ${app} could not start: ${(error as Error).message}`))
        .finally(() => starting.delete(name));
      starting.set(name, record);
    },

    async stop(scope, app) {
      if (!APP_NAME.test(app)) throw new WorkspaceError('bad-request', `invalid app name ${JSON.stringify(app)}: it must match ^[a-z][a-z0-9-]*$`, { app });
      await stopTree(devTerminalName(scope.id, app));
    },

    async close() {
      closed = true;
      const names = new Set([...ports.keys(), ...starting.keys()]);
      await Promise.all([...names].map((name) => stopTree(name)));
    },
  };
}
