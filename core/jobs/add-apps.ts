/**
 * Add-apps jobs (docs/intentic-projects.md#add-apps `POST /workspace/repos/{repo}/apps {apps: [{template, name}]}`).
 *
 * Before anything starts, in this order: the repo may hold apps (a top-level folder: not `root`, a nested id, or
 * `app`/`intent`/`desired-state`: BAD_REQUEST); a job already running for the repo (its own, or a session someone
 * else started under the job's terminal name) is CONFLICT; the template source is read (PRECONDITION_FAILED when it
 * is unusable, or lacks a folder a chosen template names); an unknown key is BAD_REQUEST naming it; a name given
 * twice, or an app folder that exists, is CONFLICT. A refused request writes nothing.
 *
 * Then the call answers and the job runs in the output-only terminal `panel-<r>--add_apps`
 * (core/terminals/output-feed.ts; `<r>` = the repo, `/` as `_`). Per app: `Adding <name> (<template>)…`; the
 * template's instance dir whose last segment is its key is copied beside itself as `<name>` (`apps/hello` →
 * `apps/<name>`), its package.json's `name` set to `<scope><name>` and stamped `"intentic": {"template": "<key>"}`;
 * the template's other instance dirs are copied where absent. Then the source's `shared` dirs where absent (each dir
 * at most once per job), and `added <name>, <name> to <repo>`. Then the repo's project (the project model's project
 * at the repo's folder or the nearest one above it) is installed through the job engine's install queue: in the
 * project's install terminal `panel-<D, or root>--install`, one at a time with the project's other installs (a
 * line says when it waits behind one), setup saying `installing` meanwhile. This terminal shows `$ <command>` and
 * mirrors the install terminal's output as it comes; the session's exit code is the install's (0 when there is
 * nothing to install, null when it was stopped). A copy that fails prints `failed: <why>` and exits 1; apps added
 * before it stay (each one is all or nothing: core/jobs/copy-template-folder.ts). Killing this terminal stops the
 * install (or drops it from the queue).
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { dirname, isInside, join } from '../../adapters/fs/posix-path.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import type { ProjectModel, ProjectRecipe } from '../projects/project-model.ts';
import type { RepoScope } from '../projects/repo-scope.ts';
import { appDirOf, sourceFolder, type TemplateInfo, type TemplateSource, type TemplateSources } from '../projects/template-source.ts';
import { createOutputFeed, type OutputFeed } from '../terminals/output-feed.ts';
import { TERMINAL_NAME_PATTERN, type TerminalManager } from '../terminals/terminal-manager.ts';
import { lstatOrUndefined } from '../tree-ops/transfer-checks.ts';
import { copyTemplateFolder } from './copy-template-folder.ts';
import type { JobEngine } from './job-engine.ts';
import { installTerminalName, repoKey } from './job-names.ts';

export const APP_NAME = /^[a-z][a-z0-9-]*$/;

/** Repos Intentic never adds apps to (docs/intentic-projects.md#repo, *Intentic:*), besides `root` and nested ids. */

export interface AppRequest {
  template: string;
  name: string;
}

export interface AppAdderOptions {
  fs: FileSystem;
  /** The workspace root's real path. */
  root: string;
  templates: TemplateSources;
  /** Where the job's output is shown; without terminals the job runs unseen. */
  terminals?: TerminalManager | undefined;
  /** Runs the install (its queue: core/jobs/install-queue.ts); without it the apps are added and nothing is installed. */
  jobs?: Pick<JobEngine, 'installProject' | 'isInstalling'> | undefined;
}

export interface AddAppsJob {
  /** The job's terminal, or undefined when it runs unseen. */
  terminal: string | undefined;
  /** Resolves with the job's exit code once it has finished; never rejects. */
  done: Promise<number | null>;
}

/** `panel-<r>--add_apps`. */
export function addAppsTerminalName(repo: string): string {
  return `panel-${repoKey(repo)}--add_apps`;
}

interface PlannedCopy {
  /** The source folder (absolute, real). */
  from: string;
  /** Repo-relative target. */
  to: string;
}

interface PlannedApp extends PlannedCopy {
  name: string;
  template: TemplateInfo;
}

export class AppAdder {
  /** Repo folders with a job under way (checks included): a second request for one is CONFLICT. */
  private readonly running = new Set<string>();

  constructor(private readonly options: AppAdderOptions) {}

  /** Checks everything, then starts the job and returns at once (the job's end is `done`). */
  async add(scope: RepoScope, apps: readonly AppRequest[], projects: ProjectModel | undefined): Promise<AddAppsJob> {
    const terminalName = addAppsTerminalName(scope.id);
    if (this.running.has(scope.dir) || this.options.terminals?.get(terminalName)?.running) {
      throw new WorkspaceError('conflict', `an add-apps job is running for repo "${scope.id}"`);
    }
    this.running.add(scope.dir);
    let plan: { apps: PlannedApp[]; extras: PlannedCopy[]; source: TemplateSource };
    let feed: OutputFeed;
    let terminal: string | undefined;
    try {
      plan = await this.plan(scope, apps);
      feed = createOutputFeed();
      terminal = await this.showIn(feed, terminalName, scope, plan.apps);
    } catch (error) {
      this.running.delete(scope.dir);
      throw error;
    }
    const done = this.run(scope, plan, feed, projects)
      .catch((error: unknown) => {
        feed.write(`failed: ${(error as Error).message}\n`);
        return 1;
      })
      .then((code) => {
        feed.end(code);
        return code;
      })
      .finally(() => this.running.delete(scope.dir));
    return { terminal, done };
  }

  /** Every check that needs the disk, in the order the module's comment gives; nothing is written. */
  private async plan(scope: RepoScope, apps: readonly AppRequest[]) {
    const { fs } = this.options;
    const source = await this.options.templates.read();
    const byKey = new Map(source.templates.map((template) => [template.key, template]));
    for (const app of apps) {
      if (!byKey.has(app.template)) throw new WorkspaceError('bad-request', `unknown template "${app.template}"`, { template: app.template });
    }
    const seen = new Set<string>();
    for (const app of apps) {
      if (seen.has(app.name)) throw new WorkspaceError('conflict', `app name "${app.name}" is given twice`, { name: app.name });
      seen.add(app.name);
    }
    const planned: PlannedApp[] = [];
    const extras: PlannedCopy[] = [];
    const extraDirs = new Set<string>();
    const addExtra = async (dir: string) => {
      if (extraDirs.has(dir)) return;
      extraDirs.add(dir);
      extras.push({ from: await sourceFolder(fs, source, dir), to: dir });
    };
    for (const app of apps) {
      const template = byKey.get(app.template)!;
      const appDir = appDirOf(template);
      const parent = appDir.includes('/') ? dirname(`/${appDir}`).slice(1) : '';
      const to = parent === '' ? app.name : `${parent}/${app.name}`;
      if ((await lstatOrUndefined(fs, join(scope.dir, to))) !== undefined) {
        throw new WorkspaceError('conflict', `"${to}" already exists in repo "${scope.id}"`, { path: to });
      }
      planned.push({ name: app.name, template, from: await sourceFolder(fs, source, appDir), to });
      for (const dir of template.instance) if (dir !== appDir) await addExtra(dir);
    }
    for (const dir of source.shared) await addExtra(dir);
    // An app's own folder is never also an extra (a template whose other dir is `apps/<this app's name>`).
    const appTargets = new Set(planned.map((app) => app.to));
    return { apps: planned, extras: extras.filter((extra) => !appTargets.has(extra.to)), source };
  }

  /** The job's terminal, fresh (a finished one of an earlier job is replaced); undefined when none can show it. */
  private async showIn(feed: OutputFeed, name: string, scope: RepoScope, apps: readonly PlannedApp[]): Promise<string | undefined> {
    const { terminals } = this.options;
    if (terminals === undefined || !TERMINAL_NAME_PATTERN.test(name)) return undefined;
    if (terminals.get(name)?.running === false) await terminals.remove(name);
    const command = `add apps to ${scope.id}: ${apps.map((app) => `${app.name} (${app.template.key})`).join(', ')}`;
    try {
      terminals.start({ name, command, cwd: scope.dir, process: feed.process });
      return name;
    } catch {
      return undefined; // too many sessions run, or the name was taken meanwhile: the job runs unseen
    }
  }

  private async run(
    scope: RepoScope,
    plan: { apps: PlannedApp[]; extras: PlannedCopy[]; source: TemplateSource },
    feed: OutputFeed,
    projects: ProjectModel | undefined,
  ): Promise<number | null> {
    const { fs } = this.options;
    const copyWhereAbsent = async (copy: PlannedCopy) => {
      const target = join(scope.dir, copy.to);
      if ((await lstatOrUndefined(fs, target)) === undefined) await copyTemplateFolder(fs, copy.from, target);
    };
    const extrasDone = new Set<PlannedCopy>();
    for (const app of plan.apps) {
      if (feed.signal.aborted) return null;
      feed.write(`Adding ${app.name} (${app.template.key})…\n`);
      await copyTemplateFolder(fs, app.from, join(scope.dir, app.to), (staged) => this.stamp(staged, plan.source.scope, app));
      for (const extra of plan.extras) {
        if (extrasDone.has(extra) || !app.template.instance.includes(extra.to)) continue;
        extrasDone.add(extra);
        await copyWhereAbsent(extra);
      }
    }
    for (const extra of plan.extras) if (!extrasDone.has(extra)) await copyWhereAbsent(extra);
    feed.write(`added ${plan.apps.map((app) => app.name).join(', ')} to ${scope.id}\n`);
    return this.install(scope, feed, projects);
  }

  /** The app's package.json: `name` = `<scope><name>` (in place), `intentic.template` = the key (kept at its place). */
  private async stamp(staged: string, packageScope: string, app: PlannedApp): Promise<void> {
    const { fs } = this.options;
    const path = join(staged, 'package.json');
    let manifest: unknown;
    try {
      manifest = JSON.parse(new TextDecoder().decode(await fs.read(path)));
    } catch {
      return; // no package.json, or one that is not JSON: copied as it is
    }
    if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) return;
    const fields = manifest as Record<string, unknown>;
    const name = `${packageScope}${app.name}`;
    const old = fields.intentic;
    const intentic = { ...(typeof old === 'object' && old !== null && !Array.isArray(old) ? old : {}), template: app.template.key };
    const out: Record<string, unknown> = 'name' in fields ? {} : { name };
    for (const [key, value] of Object.entries(fields)) out[key] = key === 'name' ? name : key === 'intentic' ? intentic : value;
    if (!('intentic' in out)) out.intentic = intentic;
    await fs.write(path, `${JSON.stringify(out, null, 2)}\n`);
  }

  /** The repo's project's install through the queue, its output mirrored in the feed; its exit code (0 when there is nothing to install). */
  private async install(scope: RepoScope, feed: OutputFeed, projects: ProjectModel | undefined): Promise<number | null> {
    const { jobs } = this.options;
    if (projects === undefined || jobs === undefined) return 0;
    const project = projectOf(await projects.projects(), scope.relative);
    if (project === undefined) return 0;
    const terminal = installTerminalName(project.dir);
    feed.write(`$ ${project.command}\n`);
    if (jobs.isInstalling(project.dir)) feed.write(`waiting for the install running in ${terminal}…\n`);
    let unfollow: (() => void) | undefined;
    const code = await jobs.installProject(project, {
      signal: feed.signal,
      onStart: (session) => (unfollow = session.follow((bytes) => feed.write(bytes))),
    });
    unfollow?.();
    if (code === null && !feed.signal.aborted) feed.write(`\nthe install was stopped (see ${terminal})\n`);
    return code;
  }
}

/** The project at the repo's folder, else the nearest one above it (the workspace's `""`). */
function projectOf(projects: readonly ProjectRecipe[], repoDir: string): ProjectRecipe | undefined {
  let best: ProjectRecipe | undefined;
  for (const project of projects) {
    const holds = project.dir === '' || project.dir === repoDir || isInside(`/${project.dir}`, `/${repoDir}`);
    if (holds && (best === undefined || project.dir.length > best.dir.length)) best = project;
  }
  return best;
}
