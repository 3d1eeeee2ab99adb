import type { ChangeFeed } from '../../core/changes/change-feed.ts';
import type { GitStateSource } from '../../core/changes/git-state-source.ts';
import { RepoCloner } from '../../core/git/clone-repo.ts';
import { RepoSyncer } from '../../core/git/sync-repos.ts';
import type { JobEngine } from '../../core/jobs/job-engine.ts';
import type { MediaTickets } from '../../core/media/media-tickets.ts';
import { resolveInsideRoot } from '../../core/paths/resolve-inside-root.ts';
import type { TerminalManager } from '../../core/terminals/terminal-manager.ts';
import type { Limits, WorkspaceContext } from '../context.ts';
import type { WorkspaceAppOptions } from './app-options.ts';
import type { FilesPart } from './files.ts';
import { buildProjects } from './projects.ts';
import type { SearchPart } from './search.ts';
import type { ChatPart } from './chat.ts';

export interface SharedContextParts {
  limits: Limits;
  files: FilesPart;
  changes: ChangeFeed;
  terminals: TerminalManager | undefined;
  search: SearchPart;
  mediaTickets: MediaTickets;
  chat: ChatPart;
  gitState: () => GitStateSource | undefined;
}

export interface SharedContext {
  /** The context for requests on `root`: the same object until the root's real path changes. */
  contextFor(root: string): WorkspaceContext;
  /** The job engine of the current root, once a request built it. */
  jobs(): JobEngine | undefined;
}

/**
 * The context requests share, built once per root value (the root is known after the first request): nothing in
 * it is per-request but `upgrade`, which the few WebSocket requests get on a copy. Rebuilding it and its closures
 * on every request showed in the `GET /api/file` profile. What depends on the root (project knowledge, jobs,
 * git's clone and sync) is made here.
 */
export function sharedContext(options: WorkspaceAppOptions, parts: SharedContextParts): SharedContext {
  const { limits, files, changes, terminals, search, mediaTickets } = parts;
  const unrestricted = options.unrestricted ?? false;
  let shared: WorkspaceContext | undefined;
  let jobs: JobEngine | undefined;
  return {
    jobs: () => jobs,
    contextFor(root) {
      if (shared?.root === root) return shared;
      const { fs, agents } = files;
      // The adapter keeps every call on a path in the root inside it while the tree changes under the call (a
      // folder swapped for a link out): resolve() below decides on real paths, this keeps the decision true.
      if (!unrestricted) fs.confine?.(root);
      void jobs?.close();
      const projects = buildProjects(options, { fs, root, limits, changes, terminals, excluded: files.excluded });
      jobs = projects.jobs;
      shared = {
        ...projects,
        fs,
        root,
        unrestricted,
        limits,
        home: options.home,
        pty: options.pty,
        terminals,
        processes: options.processes,
        zip: options.zip,
        chat: parts.chat.engineFor(root),
        upgrade: undefined,
        resolve: (path) => resolveInsideRoot(fs, root, path, { unrestricted }),
        changes,
        agents,
        view: (agent) => agents.view(agent),
        mediaTickets,
        search: search.search,
        git: options.git,
        repoCloner: options.git && new RepoCloner(fs, root, options.git, terminals),
        repoSyncer: options.git && new RepoSyncer(fs, root, options.git),
        gitState: parts.gitState(),
        parsers: options.parsers ?? options.search?.parsers,
        healthFigures: options.healthFigures,
        healthStore: options.healthStore,
        changesAreSeen: search.changesAreSeen,
        panel: options.panel,
        acceptsWebSockets: options.webSockets ?? false,
      };
      return shared;
    },
  };
}
