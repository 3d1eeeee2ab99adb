import type { FileSystem } from '../../adapters/fs/file-system.ts';
import type { ChangeFeed } from '../../core/changes/change-feed.ts';
import { AppAdder } from '../../core/jobs/add-apps.ts';
import { createJobEngine, type JobEngine } from '../../core/jobs/job-engine.ts';
import { createProjectModel, type WorkspaceProjectModel } from '../../core/projects/create-project-model.ts';
import { createTemplateSources, type TemplateSources } from '../../core/projects/template-source.ts';
import type { TerminalManager } from '../../core/terminals/terminal-manager.ts';
import type { Limits } from '../context.ts';
import type { WorkspaceAppOptions } from './app-options.ts';

export interface ProjectsPart {
  templateSources: TemplateSources;
  projects: WorkspaceProjectModel;
  /** Installs, dev servers and test runs: only with terminals and a job host (Node). */
  jobs: JobEngine | undefined;
  appAdder: AppAdder;
}

interface ProjectsInputs {
  fs: FileSystem;
  root: string;
  limits: Limits;
  changes: ChangeFeed;
  terminals: TerminalManager | undefined;
  excluded: () => Promise<string[]>;
}

/**
 * Project knowledge for one root (docs/intentic-projects.md): the template sources (read on every call), the
 * project model (its caches dropped by the change feed), the job engine over the terminals and the model, and
 * add-apps, whose install goes through the job engine's queue.
 */
export function buildProjects(options: WorkspaceAppOptions, inputs: ProjectsInputs): ProjectsPart {
  const { fs, root, limits, changes, terminals } = inputs;
  const templateSources = createTemplateSources({ fs, root, git: options.git, shippedDir: options.templatesDir });
  const projects = createProjectModel({
    fs,
    root,
    changes,
    commands: options.commands,
    templateKeys: () => templateSources.keys(), // a stamped kind counts while the source has it
    exclude: inputs.excluded,
  });
  const jobs =
    terminals && options.jobHost
      ? createJobEngine({
          fs,
          root,
          terminals,
          projects,
          host: options.jobHost,
          installTimeoutMs: limits.installTimeoutMs,
          previewUrl: options.previewUrl,
        })
      : undefined;
  const appAdder = new AppAdder({ fs, root, templates: templateSources, terminals, jobs });
  return { templateSources, projects, jobs, appAdder };
}
