/**
 * The install queue (docs/intentic-projects.md#install `POST /workspace/setup/install`): each project's install `command` runs
 * in its install terminal (`panel-<D, or root>--install`), cwd the project, one at a time per project, killed after
 * the time limit (30 min; `limits.installTimeoutMs`). A project is installing while it is queued or its install
 * terminal runs; setup reads that through `isInstalling`. After each install the project model is told to forget
 * what it cached (the installed packages may reach the change feed late, or not at all without a watcher).
 */
import type { ProjectModel, ProjectRecipe } from '../projects/project-model.ts';
import type { TerminalManager, TerminalSession } from '../terminals/terminal-manager.ts';
import { join } from '../../adapters/fs/posix-path.ts';
import type { JobHost } from './job-host.ts';
import { installTerminalName } from './job-names.ts';
import { startJobTerminal } from './job-terminal.ts';

export interface InstallQueueOptions {
  root: string;
  terminals: TerminalManager;
  projects: ProjectModel;
  host: JobHost;
  timeoutMs: number;
}

/** What a caller waiting on one install (an add-apps job) may ask of it. */
export interface InstallOptions {
  /** Called once the install's terminal started (not while it waits its turn): e.g. to follow its output. */
  onStart?: (session: TerminalSession) => void;
  /** Aborted: an install still waiting its turn never starts, a running one is killed (resolves null). */
  signal?: AbortSignal;
}

export interface InstallQueue {
  /**
   * Queues the install of each of `dirs` (normalised, root-relative) that is a `needs-setup` or `stale` project
   * and is not installing already; answers the queued dirs in setup's order, without waiting for any install.
   */
  request(dirs: readonly string[]): Promise<string[]>;
  /** Queued, or its install terminal runs. */
  isInstalling(dir: string): boolean;
  /**
   * Queues `project`'s install behind any other of the same project; resolves with its exit code (null: killed,
   * timed out, aborted, or it could not start) once it has finished. Never rejects.
   */
  install(project: ProjectRecipe, options?: InstallOptions): Promise<number | null>;
  /** Stops taking work and kills what runs (the daemon's shutdown). */
  close(): Promise<void>;
}

export function createInstallQueue(options: InstallQueueOptions): InstallQueue {
  const { root, terminals, projects, host, timeoutMs } = options;
  /** Per project dir: how many installs are queued or running, and the tail of its chain. */
  const waiting = new Map<string, number>();
  const tails = new Map<string, Promise<unknown>>();
  let closed = false;

  async function run(project: ProjectRecipe, { onStart, signal }: InstallOptions): Promise<number | null> {
    if (closed || signal?.aborted) return null;
    const cwd = project.dir === '' ? root : join(root, project.dir);
    const name = installTerminalName(project.dir);
    // A same-named terminal someone else started (POST /terminals) runs first: this install waits its turn.
    await terminals.get(name)?.exited;
    if (closed || signal?.aborted) return null;
    let session: TerminalSession | undefined;
    try {
      session = await startJobTerminal(terminals, { name, command: project.command, cwd, env: host.env(cwd) });
    } catch (error) {
      console.error(`workspace-api: the install of ${JSON.stringify(project.dir)} could not start: ${(error as Error).message}`);
      return null;
    }
    if (session === undefined) return null;
    const started = session;
    const kill = () => void started.kill();
    const timer = setTimeout(kill, timeoutMs);
    signal?.addEventListener('abort', kill, { once: true });
    try {
      onStart?.(started);
    } catch (error) {
      console.error(`workspace-api: a watcher of the install of ${JSON.stringify(project.dir)} failed: ${(error as Error).message}`);
    }
    try {
      return (await started.exited).code;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', kill);
      projects.invalidate();
    }
  }

  function install(project: ProjectRecipe, options: InstallOptions = {}): Promise<number | null> {
    const dir = project.dir;
    waiting.set(dir, (waiting.get(dir) ?? 0) + 1);
    const result = (tails.get(dir) ?? Promise.resolve())
      .then(() => run(project, options))
      .catch((error: unknown) => {
        console.error(`workspace-api: the install of ${JSON.stringify(dir)} failed: ${(error as Error).message}`);
        return null;
      })
      .finally(() => {
        const left = (waiting.get(dir) ?? 1) - 1;
        if (left > 0) waiting.set(dir, left);
        else {
          waiting.delete(dir);
          tails.delete(dir);
        }
      });
    tails.set(dir, result);
    return result;
  }

  const isInstalling = (dir: string) => waiting.has(dir) || terminals.get(installTerminalName(dir))?.running === true;

  return {
    isInstalling,
    install,
    async request(dirs) {
      const wanted = new Set(dirs);
      const candidates = (await projects.projects()).filter((project) => wanted.has(project.dir) && !isInstalling(project.dir));
      const states = await Promise.all(candidates.map((project) => projects.installState(project)));
      const queued: ProjectRecipe[] = [];
      candidates.forEach((project, i) => {
        const { state } = states[i]!;
        // Checked again: a concurrent request may have queued it while the states were read.
        if ((state === 'needs-setup' || state === 'stale') && !isInstalling(project.dir)) queued.push(project);
      });
      for (const project of queued) void install(project);
      return queued.map((project) => project.dir);
    },
    async close() {
      closed = true;
      await Promise.all(
        [...waiting.keys()].map((dir) => terminals.get(installTerminalName(dir))?.kill()),
      );
    },
  };
}
