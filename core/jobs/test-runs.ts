/**
 * Test runs (docs/intentic-projects.md#tests `POST /workspace/repos/{repo}/tests`): in `panel-<r>--<session>`, each dir in
 * order runs its `test` script through its project's manager (`npm test`, `pnpm test`, …), else `vitest run`
 * through the manager's exec (`npx --no`, `pnpm exec`, …); a failing dir does not stop the next, and the terminal
 * exits 1 when any failed. A running session key is a no-op.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { join, relativeTo } from '../../adapters/fs/posix-path.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import type { ProjectModel, ProjectRecipe } from '../projects/project-model.ts';
import type { RepoScope } from '../projects/repo-scope.ts';
import type { TerminalManager } from '../terminals/terminal-manager.ts';
import { checkDirs } from './job-dirs.ts';
import type { JobHost } from './job-host.ts';
import { shellQuote } from '../shell-quote.ts';
import { testTerminalName } from './job-names.ts';
import { startJobTerminal } from './job-terminal.ts';

export const SESSION_NAME = /^[a-z0-9][a-z0-9_-]*$/;
/** The install and add-apps terminals' keys. */
export const TAKEN_SESSIONS: ReadonlySet<string> = new Set(['install', 'add_apps']);

/**
 * How each manager runs a package's binary. npx asks before downloading a package that is not installed, and a
 * job's terminal has nobody to answer: `--no` makes it fail at once instead.
 */
const EXEC: Record<string, string> = { npm: 'npx --no', pnpm: 'pnpm exec', yarn: 'yarn exec', bun: 'bunx' };

export interface TestRunsOptions {
  fs: FileSystem;
  root: string;
  terminals: TerminalManager;
  projects: ProjectModel;
  host: JobHost;
}

export interface TestRuns {
  /** Checks the session and dirs (BAD_REQUEST before anything starts), then starts the run without waiting for it. */
  start(scope: RepoScope, session: string, dirs: readonly string[]): Promise<void>;
}

export function createTestRuns(options: TestRunsOptions): TestRuns {
  const { fs, root, terminals, projects, host } = options;

  /** The Node project holding `dir` (root-relative): the deepest project folder at or above it. */
  function projectOf(all: ProjectRecipe[], dir: string): ProjectRecipe | undefined {
    let best: ProjectRecipe | undefined;
    for (const project of all) {
      if (project.ecosystem !== 'node') continue;
      const holds = project.dir === '' || dir === project.dir || dir.startsWith(project.dir + '/');
      if (holds && (best === undefined || project.dir.length > best.dir.length)) best = project;
    }
    return best;
  }

  async function hasTestScript(folder: string): Promise<boolean> {
    try {
      const manifest = JSON.parse(new TextDecoder().decode(await fs.read(join(folder, 'package.json')))) as unknown;
      const scripts = (manifest as { scripts?: unknown } | null)?.scripts;
      return typeof (scripts as { test?: unknown } | null | undefined)?.test === 'string';
    } catch {
      return false;
    }
  }

  return {
    async start(scope, session, dirs) {
      if (!SESSION_NAME.test(session)) {
        throw new WorkspaceError('bad-request', `invalid session ${JSON.stringify(session)}: it must match ^[a-z0-9][a-z0-9_-]*$`, { session });
      }
      if (TAKEN_SESSIONS.has(session)) {
        throw new WorkspaceError('bad-request', `invalid session "${session}": that terminal is taken (install, add_apps)`, { session });
      }
      if (dirs.length === 0) throw new WorkspaceError('bad-request', 'invalid body: dirs: at least one dir');
      const checked = await checkDirs(fs, scope.dir, dirs, `repo "${scope.id}"`);
      for (const dir of checked) {
        if (!dir.isFolder) throw new WorkspaceError('bad-request', `invalid dir ${JSON.stringify(dir.given)}: no such folder in repo "${scope.id}"`, { dir: dir.given });
      }
      const name = testTerminalName(scope.id, session);
      if (terminals.get(name)?.running) return; // a running session key is a no-op

      const all = await projects.projects();
      const steps: string[] = ['status=0'];
      for (const dir of checked) {
        const folder = dir.real!;
        const project = projectOf(all, relativeTo(root, folder));
        const manager = project?.manager ?? 'npm';
        const command = (await hasTestScript(folder)) ? `${manager} test` : `${EXEC[manager] ?? 'npx --no'} vitest run`;
        const label = `==> ${dir.relative === '' ? scope.id : dir.relative}: ${command}`;
        // Each dir gets its own node_modules/.bin first on PATH, as the terminal's cwd does.
        steps.push(`printf '%s\\n' ${shellQuote(label)}`);
        steps.push(`(cd ${shellQuote(folder)} && PATH=${shellQuote(`${folder}/node_modules/.bin`)}:"$PATH" ${command}) || status=1`);
      }
      steps.push('exit $status');
      await startJobTerminal(terminals, { name, command: steps.join('; '), cwd: scope.dir, env: host.env(scope.dir) });
    },
  };
}
