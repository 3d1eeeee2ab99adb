import type { FileSystem } from '../adapters/fs/file-system.ts';
import { ObservedFileSystem } from '../adapters/fs/observed-file-system.ts';
import { join, normalize } from '../adapters/fs/posix-path.ts';
import { SerializedFileSystem } from '../adapters/fs/serialized-file-system.ts';
import type { ZipAdapter } from '../adapters/archive/zip-adapter.ts';
import type { ProcessAdapter } from '../adapters/process/process-adapter.ts';
import type { PtyAdapter } from '../adapters/pty/pty-adapter.ts';
import type { WorktreeAdapter } from '../adapters/git/worktree-adapter.ts';
import type { WatcherAdapter } from '../adapters/watcher/watcher-adapter.ts';
import { agentsFolder, createAgentCopies } from '../core/agents/agent-copies.ts';
import type { ChangeFeed } from '../core/changes/change-feed.ts';
import { createChangeFeed } from '../core/changes/create-change-feed.ts';
import { observedSource } from '../core/changes/observed-source.ts';
import { gitStateSource, type GitStateSource } from '../core/changes/git-state-source.ts';
import { watcherSource } from '../core/changes/watcher-source.ts';
import { createMediaTickets } from '../core/media/media-tickets.ts';
import { createTerminalManager } from '../core/terminals/create-terminal-manager.ts';
import type { TerminalManager } from '../core/terminals/terminal-manager.ts';
import { createSearchEngine, type SearchEngine } from '../core/search/search-engine.ts';
import type { SearchAdapters, SearchEngineOptions } from '../core/search/engine/engine-types.ts';
import { requestScopedSearch } from './search/request-scoped-search.ts';
import { RepoCloner } from '../core/git/clone-repo.ts';
import { RepoSyncer } from '../core/git/sync-repos.ts';
import type { GitRunner } from '../core/git/git-runner.ts';
import type { ParserAdapter } from '../core/search/symbols/syntax-tree.ts';
import type { FiguresOf } from '../core/health/file-figures.ts';
import type { FiguresStore } from '../core/health/figures-store.ts';
import type { CommandLookup } from '../core/projects/command-lookup.ts';
import { createProjectModel } from '../core/projects/create-project-model.ts';
import { createJobEngine, type JobEngine } from '../core/jobs/job-engine.ts';
import type { JobHost } from '../core/jobs/job-host.ts';
import { createTemplateSources } from '../core/projects/template-source.ts';
import { AppAdder } from '../core/jobs/add-apps.ts';
import type { AuthConfig } from './auth.ts';
import { defaultLimits, type Limits, type WorkspaceContext } from './context.ts';
import { isOriginAllowedToAct, preflight, withCorsHeaders, type OriginPolicy } from './cors.ts';
import { jsonResponse } from './errors/render.ts';
import { withFetchBoundary } from './errors/fetch-boundary.ts';
import { resolveInsideRoot } from '../core/paths/resolve-inside-root.ts';
import { createRouter } from './routes.ts';
import type { Upgrader } from './websocket.ts';

export interface WorkspaceAppOptions {
  fs: FileSystem;
  /** The workspace root (absolute); resolved to its real path once. */
  root: string;
  /** `{ token }` to require one, `{ disabled: true }` for `--no-auth`. */
  auth: AuthConfig;
  /** Browser origins allowed to call the API and open WebSockets ("*" for any). */
  allowedOrigins?: string[];
  /** Mount the whole API under a prefix, e.g. "/sandbox/abc" behind a gateway. */
  basePath?: string;
  /** Seed 000's "absolute paths are used as-is" (off by default: paths are confined to the root). */
  unrestricted?: boolean;
  limits?: Partial<Limits>;
  /**
   * The media tickets' HMAC key (≥ 32 bytes). Default: random per app instance, so tickets die with the
   * process; configure one to keep them valid across restarts or between instances serving one workspace.
   */
  mediaTicketKey?: Uint8Array;
  home?: string;
  /** Pseudo-terminals (Node): `/ws/terminal`, `/terminals`, the protocol's `pty_*`. */
  pty?: PtyAdapter;
  /** One-shot commands (Node): the protocol's `run_command`. */
  processes?: ProcessAdapter;
  /** Zip reading (Node): the protocol's `extract_zip`. */
  zip?: ZipAdapter;
  /** Git (Node): the protocol's git commands and Intentic's clone and sync. */
  git?: GitRunner;
  /** Whether a manager is on PATH (Node): setup's `needs-setup` vs `unsupported`; absent → never on PATH. */
  commands?: CommandLookup;
  /** Tree-sitter parsers for health (issue 9 "health"), in-process; default: `search.parsers`. */
  parsers?: ParserAdapter;
  /** How health measures one file (Node: on the parse pool's worker threads); preferred over `parsers`. */
  healthFigures?: FiguresOf;
  /** Keeps health's figures between runs (Node: beside the persisted search index). */
  healthStore?: FiguresStore;
  /** The templates shipped with the daemon, an absolute folder (runtime/node passes the package's `templates/`). */
  templatesDir?: string;
  /** The job engine's Node powers (installs, dev servers, test runs: core/jobs); without it, or a pty, no jobs. */
  jobHost?: JobHost;
  /** `--preview-url`: an app's previewUrl pattern (`{repo}` `{app}` `{panel}` `{port}`; core/jobs/dev-servers.ts). */
  previewUrl?: string;
  /** Where agents' private copies live: absolute, or relative to the root (default `.agents`). */
  agentsDir?: string;
  /** Git worktrees for agent copies (Node); without it agents get plain copies of the tree. */
  worktrees?: WorktreeAdapter;
  /** The OS watcher (Node): changes made outside the API reach the change feed too. Stopped by `close`. */
  watcher?: WatcherAdapter;
  /**
   * The search engine's runtime parts (Node: worker threads, the disk cache, WASM parsers, embeddings) and
   * `eager` to start its file list and index at once rather than at the first search.
   */
  search?: SearchAdapters & {
    eager?: boolean;
    /** Nothing changes the storage behind the change feed's back (default: true when a watcher is given). */
    changesAreSeen?: boolean;
    /**
     * A runtime that cancels what a request leaves running (Cloudflare Workers): each request searches with an
     * engine of its own, settled before it answers (runtime/search/request-scoped-search.ts).
     */
    perRequest?: boolean;
  };
}

/** Per-request extras a runtime may pass: the Node server passes an upgrader for WebSocket requests. */
export interface RequestEnv {
  upgrade?: Upgrader;
}

export interface WorkspaceApp {
  fetch(request: Request, env?: RequestEnv): Promise<Response>;
  /** The change feed every write and (on Node) the OS watcher report to: for in-process consumers. */
  readonly changes: ChangeFeed;
  /** The terminal sessions (with a pty adapter): other engines start installs, servers and tests here. */
  readonly terminals: TerminalManager | undefined;
  /** The search engine (core/search): for in-process consumers and benchmarks. */
  readonly search: SearchEngine;
  /** Installs, dev servers and test runs (core/jobs), once the first request built them; the Node server closes them first. */
  readonly jobs: JobEngine | undefined;
  /** Stops background work (watchers, change streams, terminals). The app answers nothing useful afterwards. */
  close(): Promise<void>;
}

/** The one public entry: every runtime (Node, Workers, tests, a host fetch server) mounts this `fetch`. */
export function createWorkspaceApp(options: WorkspaceAppOptions): WorkspaceApp {
  const limits: Limits = { ...defaultLimits, ...options.limits };
  const policy: OriginPolicy = { allowedOrigins: options.allowedOrigins ?? [] };
  const basePath = normalizeBasePath(options.basePath);
  const router = createRouter({ base: basePath, auth: options.auth });
  const unrestricted = options.unrestricted ?? false;
  const changes = createChangeFeed();
  const mediaTickets = createMediaTickets({ ttlMs: limits.mediaTicketTtlMs, key: options.mediaTicketKey });
  const terminals = options.pty
    ? createTerminalManager(options.pty, {
        ringBytes: limits.terminalRingBytes,
        maxSessions: limits.maxTerminals,
        reapMs: limits.terminalReapMs,
        stallMs: limits.terminalStallMs,
      })
    : undefined;
  // Writers to one path run one at a time, so two conditional writes through the daemon never both win
  // (adapters/fs/serialized-file-system.ts). Wrapped once; everything below reads and writes through it.
  // Inside the serialiser, the observer: every mutation reports to the change feed before it resolves, and
  // while it still holds its path's lock, so two writes to one path are reported in the order they landed
  // (outside the lock, the first write's report could arrive after the second's and leave a stale version).
  // Git state (with a watcher) hears every change too: a new folder may be a new repo.
  let gitState: GitStateSource | undefined;
  const fs: FileSystem = new SerializedFileSystem(
    new ObservedFileSystem(options.fs, (change) => {
      changes.publish(change);
      gitState?.notice(change);
    }),
  );
  let realRoot: string | undefined;

  async function rootPath(): Promise<string> {
    if (realRoot) return realRoot;
    try {
      realRoot = await fs.realpath(options.root);
      return realRoot;
    } catch {
      return normalize(options.root); // missing root: handlers answer 404; retried on the next request
    }
  }

  const agents = createAgentCopies({
    fs,
    root: rootPath,
    configuredRoot: options.root,
    dir: agentsFolder(options.root, options.agentsDir),
    unrestricted,
    worktrees: options.worktrees,
    copyCaps: { maxEntries: limits.maxCopyEntries, maxBytes: limits.maxCopyBytes },
  });

  const { eager: eagerSearch, changesAreSeen: changesSaidSeen, perRequest: searchPerRequest, ...searchAdapters } = options.search ?? {};
  const changesAreSeen = changesSaidSeen ?? options.watcher !== undefined;
  // One key for every engine of the app, so a per-request engine honours the cursors of an earlier one.
  const cursorKey = crypto.getRandomValues(new Uint8Array(32));
  const makeSearch = (extra: Partial<SearchEngineOptions> = {}) =>
    createSearchEngine({
      ...searchAdapters,
      fs,
      root: rootPath,
      changes,
      changesAreSeen,
      exclude: async () => {
        await agents.view(undefined); // resolves `agents.dir` to its real path
        return [agents.dir];
      },
      cursorKey,
      ...extra,
    });
  const search = makeSearch();
  if (eagerSearch && !searchPerRequest) search.start();

  /**
   * The context requests share, built once per root value (the root is known after the first request):
   * nothing in it is per-request but `upgrade`, which the few WebSocket requests get on a copy. Rebuilding it
   * and its closures on every request showed in the `GET /api/file` profile.
   */
  let sharedContext: WorkspaceContext | undefined;
  let jobs: JobEngine | undefined;
  function contextFor(root: string): WorkspaceContext {
    if (sharedContext?.root === root) return sharedContext;
    // Templates and add-apps jobs (issue 9 "templates"): the source is read on every call.
    const templateSources = createTemplateSources({ fs, root, git: options.git, shippedDir: options.templatesDir });
    // The project model (core/projects, issue 9 "model"): one per root, its caches dropped by the change feed.
    const projects = createProjectModel({
      fs,
      root,
      changes,
      commands: options.commands,
      templateKeys: () => templateSources.keys(), // a stamped kind counts while the source has it (issue 9 "templates")
      exclude: async () => {
        await agents.view(undefined); // resolves `agents.dir` to its real path
        return [agents.dir];
      },
    });
    // The job engine (core/jobs, issue 9 "jobs"): over the terminals and the model, one per root like the model.
    void jobs?.close();
    jobs =
      terminals && options.jobHost
        ? createJobEngine({ fs, root, terminals, projects, host: options.jobHost, installTimeoutMs: limits.installTimeoutMs, previewUrl: options.previewUrl })
        : undefined;
    sharedContext = {
      fs,
      root,
      unrestricted,
      limits,
      home: options.home,
      pty: options.pty,
      terminals,
      processes: options.processes,
      zip: options.zip,
      upgrade: undefined,
      resolve: (path) => resolveInsideRoot(fs, root, path, { unrestricted }),
      changes,
      agents,
      view: (agent) => agents.view(agent),
      mediaTickets,
      search,
      git: options.git,
      repoCloner: options.git && new RepoCloner(fs, root, options.git, terminals),
      repoSyncer: options.git && new RepoSyncer(fs, root, options.git),
      gitState,
      jobs, // issue 9 "jobs"
      parsers: options.parsers ?? options.search?.parsers, // health (issue 9 "health")
      healthFigures: options.healthFigures,
      healthStore: options.healthStore,
      changesAreSeen,
      projects,
      templateSources, // issue 9 "templates"
      appAdder: new AppAdder({
        fs,
        root,
        templates: templateSources,
        terminals,
        jobs, // its install goes through the job engine's queue (issue 9 "jobs")
      }),
    };
    return sharedContext;
  }

  if (options.watcher) {
    const source = watcherSource({
      watcher: options.watcher,
      fs,
      root: rootPath,
      // The agents folder is not the shared tree (its copies report through the API's own writes).
      ignorePaths: async () => {
        await agents.view(undefined); // resolves `agents.dir` to its real path
        return [agents.dir];
      },
      onError: (error) => console.error(`workspace-api: the file watcher may have missed changes: ${error.message}`),
      // Gitignored files are reported too: search's `includeIgnored` and the file list follow them, and the API's
      // own writes to them are reported anyway. Installed packages stay unwatched (the default ignored names).
      gitignore: false,
    });
    changes.attachSource(observedSource(source, (change) => gitState?.notice(change))).catch((error: unknown) => {
      console.error(`workspace-api: changes made outside the API will not be reported: ${(error as Error).message}`);
    });
    // Commits, checkouts, merges and stashes from a terminal: one `<repo>/.git` change per repo and batch.
    gitState = gitStateSource({
      watcher: options.watcher,
      fs,
      root: rootPath,
      exclude: async () => {
        await agents.view(undefined);
        return [agents.dir];
      },
      onError: (error) => console.error(`workspace-api: git state may be stale: ${error.message}`),
    });
    changes.attachSource(gitState).catch((error: unknown) => {
      console.error(`workspace-api: git state changes will not be reported: ${(error as Error).message}`);
    });
  }

  /** The request routed with a search engine of its own, closed once its response is made. */
  async function routeWithOwnSearch(request: Request, ctx: WorkspaceContext): Promise<Response> {
    const scoped = requestScopedSearch(() => makeSearch({ index: false }));
    try {
      return (await router.fetch(request, { ...ctx, search: scoped.engine })) ?? jsonResponse({ error: 'not found' }, 404);
    } finally {
      await scoped.close();
    }
  }

  return {
    changes,
    terminals,
    search,
    get jobs() {
      return jobs;
    },
    async close() {
      await jobs?.close(); // dev servers' whole trees first: the terminals' hang-up misses what left their sessions
      await Promise.all([search.close(), changes.close(), terminals?.closeAll(), options.processes?.killAll()]);
    },
    fetch: withFetchBoundary(basePath, async (request: Request, env: RequestEnv = {}) => {
      if (request.method === 'OPTIONS') return preflight(request, policy);
      const isUpgrade = request.headers.get('upgrade')?.toLowerCase() === 'websocket';
      const acts = isUpgrade || (request.method !== 'GET' && request.method !== 'HEAD');
      if (acts && !isOriginAllowedToAct(request, policy)) {
        return jsonResponse({ error: 'origin not allowed' }, 403);
      }
      const shared = contextFor(realRoot ?? (await rootPath()));
      const ctx = isUpgrade && env.upgrade ? { ...shared, upgrade: env.upgrade } : shared;
      if (searchPerRequest) return withCorsHeaders(await routeWithOwnSearch(request, ctx), request, policy);
      // Outside `basePath` no route matches at all (the catch-all lives under the base too).
      const response: Response = (await router.fetch(request, ctx)) ?? jsonResponse({ error: 'not found' }, 404);
      return withCorsHeaders(response, request, policy);
    }),
  };
}

function normalizeBasePath(basePath: string | undefined): string {
  if (!basePath) return '';
  const normalized = normalize('/' + basePath);
  return normalized === '/' ? '' : normalized;
}
