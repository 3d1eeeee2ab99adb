import type { FileSystem } from '../../adapters/fs/file-system.ts';
import type { ZipAdapter } from '../../adapters/archive/zip-adapter.ts';
import type { ProcessAdapter } from '../../adapters/process/process-adapter.ts';
import type { ChatHost } from '../../adapters/process/chat-host.ts';
import type { PtyAdapter } from '../../adapters/pty/pty-adapter.ts';
import type { WorktreeAdapter } from '../../adapters/git/worktree-adapter.ts';
import type { WatcherAdapter } from '../../adapters/watcher/watcher-adapter.ts';
import type { ChangeFeed } from '../../core/changes/change-feed.ts';
import type { TerminalManager } from '../../core/terminals/terminal-manager.ts';
import type { SearchEngine } from '../../core/search/search-engine.ts';
import type { SearchAdapters } from '../../core/search/engine/engine-types.ts';
import type { GitRunner } from '../../core/git/git-runner.ts';
import type { ParserAdapter } from '../../core/search/symbols/syntax-tree.ts';
import type { FiguresOf } from '../../core/health/file-figures.ts';
import type { FiguresStore } from '../../core/health/figures-store.ts';
import type { CommandLookup } from '../../core/projects/command-lookup.ts';
import type { JobEngine } from '../../core/jobs/job-engine.ts';
import type { JobHost } from '../../core/jobs/job-host.ts';
import type { AuthConfig } from '../auth.ts';
import type { Limits } from '../context.ts';
import type { Upgrader } from '../websocket.ts';
import type { PanelAssets } from '../panel/panel-assets.ts';

/** What `createWorkspaceApp` takes and gives (runtime/app.ts). */

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
  /** ori's "absolute paths are used as-is" (off by default: paths are confined to the root). */
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
  /** Zip reading: the protocol's `extract_zip` (Node: yauzl; Workers: adapters/archive/web-zip-adapter.ts). */
  zip?: ZipAdapter;
  /** Agent CLIs (Node): the protocol's agent chat; without it the chat commands answer that chat needs a machine. */
  chatHost?: ChatHost;
  /** `chat_models`' base URLs (`--chat-models-url opencode=URL`, `kilo=URL`); default: OpenRouter's and Kilo's. */
  chatModelsUrls?: { opencode?: string; kilo?: string };
  /** Git (Node): the protocol's git commands and Intentic's clone and sync. */
  git?: GitRunner;
  /** Whether a manager is on PATH (Node): setup's `needs-setup` vs `unsupported`; absent → never on PATH. */
  commands?: CommandLookup;
  /** Tree-sitter parsers for health (core/health), in-process; default: `search.parsers`. */
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
  /** The runtime accepts WebSocket upgrades (the Node server says so; `/capabilities` tells clients). */
  webSockets?: boolean;
  /** The web panel's files (Node: runtime/node/node-panel-assets.ts; Workers: embedded); absent → no panel at `/`. */
  panel?: PanelAssets;
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

