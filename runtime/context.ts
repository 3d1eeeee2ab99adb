import type { SearchEngine } from '../core/search/search-engine.ts';
import type { FileSystem } from '../adapters/fs/file-system.ts';
import type { ZipAdapter } from '../adapters/archive/zip-adapter.ts';
import type { RepoCloner } from '../core/git/clone-repo.ts';
import type { RepoSyncer } from '../core/git/sync-repos.ts';
import type { GitRunner } from '../core/git/git-runner.ts';
import type { ProcessAdapter } from '../adapters/process/process-adapter.ts';
import type { PtyAdapter } from '../adapters/pty/pty-adapter.ts';
import type { TerminalManager } from '../core/terminals/terminal-manager.ts';
import type { AgentCopies, WorkspaceView } from '../core/agents/workspace-view.ts';
import type { ChangeFeed } from '../core/changes/change-feed.ts';
import type { MediaTickets } from '../core/media/media-tickets.ts';
import type { Upgrader } from './websocket.ts';
import type { ParserAdapter } from '../core/search/symbols/syntax-tree.ts';
import type { FiguresOf } from '../core/health/file-figures.ts';
import type { FiguresStore } from '../core/health/figures-store.ts';
import type { WorkspaceProjectModel } from '../core/projects/create-project-model.ts';
import type { JobEngine } from '../core/jobs/job-engine.ts';
import type { TemplateSources } from '../core/projects/template-source.ts';
import type { AppAdder } from '../core/jobs/add-apps.ts';
import type { ChatEngine } from '../core/chat/chat-types.ts';
import type { PanelAssets } from './panel/panel-assets.ts';
import type { TokenScope } from '../core/auth/scoped-token.ts';

/** Caps that keep one request from exhausting the daemon. */
export interface Limits {
  /** Largest request body accepted (bytes). */
  maxBodyBytes: number;
  /** Largest file `GET /api/file` returns (docs/ori.md#read: 5 MiB). */
  maxTextFileBytes: number;
  /** Search walk: stop after this many directory entries (docs/ori.md#search: 50 000). */
  maxSearchEntries: number;
  /** Intentic `tree`: the walk's entry budget (docs/intentic.md#tree: 5000). */
  maxTreeEntries: number;
  /** Intentic `file`: the largest window (docs/intentic.md#file: 4 MiB). */
  maxFileWindowBytes: number;
  /** Intentic `/workspace/raw`: the largest file served (docs/intentic.md#byte-routes: 25 MiB). */
  maxRawBytes: number;
  /** Intentic `/workspace/upload`: the largest file (docs/intentic.md#byte-routes: 10 GiB). */
  maxUploadBytes: number;
  /** Intentic media tickets live this long (docs/intentic.md#media: 1 hour; `--media-ticket-ttl`). */
  mediaTicketTtlMs: number;
  /** Intentic `copy`: refuse a tree with more entries or bytes than this, before copying anything. */
  maxCopyEntries: number;
  maxCopyBytes: number;
  /** workspace-files (docs/workspace-files.md#gates): page / window byte cap, page line cap, listing entry cap. */
  pageMaxBytes: number;
  pageMaxLines: number;
  listMaxEntries: number;
  /** `/workspace-files/changes`: distinct pending paths per subscriber before one `resync` replaces them. */
  changesMaxQueue: number;
  /** `/workspace-files/changes`: period of the `: keep-alive` comment on an idle stream. */
  changesKeepAliveMs: number;
  /** WebSocket messages: `/ws` (docs/noide-protocol.md#frames: 64 MiB, an upload is one base64 frame) and terminal sockets (1 MiB). */
  rpcMaxMessageBytes: number;
  terminalMaxMessageBytes: number;
  /** `/ws` file commands that answer with a whole file (`read_file`, `download_file`, ...): the largest file. */
  rpcMaxFileBytes: number;
  /** `run_command` (docs/noide-protocol.md#run_command): deadline (`--command-timeout`) and combined-output cap (`--command-output-cap`). */
  commandTimeoutMs: number;
  commandOutputCap: number;
  /** `extract_zip` (docs/noide-protocol.md#extract_zip): entries, total uncompressed bytes, and the per-entry compression ratio. */
  zipMaxEntries: number;
  zipMaxBytes: number;
  zipMaxRatio: number;
  /** Terminals (core/terminals): output ring per session, live sessions, reaping of exited idle ones. */
  terminalRingBytes: number;
  maxTerminals: number;
  terminalReapMs: number;
  /**
   * Flow control: how long an attached client may hold a named terminal's pty paused (it reads slower than the
   * program writes) before it is dropped and the program runs on. Unnamed `/ws/terminal` sessions never drop.
   */
  terminalStallMs: number;
  /** Project installs (core/jobs/install-queue.ts) are killed after this long (docs/intentic-projects.md#install: 30 min). */
  installTimeoutMs: number;
  /**
   * Agent chat (docs/noide-protocol.md#agent-chat): chats running at once (`--max-chats`), a chat's lifetime
   * (`--chat-timeout`), how long an agent server may take to print its port, the TERM → KILL grace, the `run --help`
   * probe's limit, and `chat_models`' request limit.
   */
  maxChats: number;
  chatTimeoutMs: number;
  chatServerStartMs: number;
  chatKillGraceMs: number;
  chatProbeTimeoutMs: number;
  chatModelsTimeoutMs: number;
  /**
   * Requests worked on at once; the rest wait their turn in arrival order, at most `maxQueuedRequests` of them and
   * each at most `requestQueueMs`, else 429 with Retry-After (runtime/http/admission-gate.ts).
   */
  maxActiveRequests: number;
  maxQueuedRequests: number;
  requestQueueMs: number;
}

export const defaultLimits: Limits = {
  maxBodyBytes: 16 * 1024 * 1024,
  maxTextFileBytes: 5 * 1024 * 1024,
  maxSearchEntries: 50_000,
  maxTreeEntries: 5000,
  maxFileWindowBytes: 4 * 1024 * 1024,
  maxRawBytes: 25 * 1024 * 1024,
  maxUploadBytes: 10 * 1024 * 1024 * 1024,
  mediaTicketTtlMs: 60 * 60 * 1000,
  maxCopyEntries: 100_000,
  maxCopyBytes: 4 * 1024 * 1024 * 1024,
  pageMaxBytes: 2 * 1024 * 1024,
  pageMaxLines: 5000,
  listMaxEntries: 2000,
  changesMaxQueue: 1000,
  changesKeepAliveMs: 15_000,
  rpcMaxMessageBytes: 64 * 1024 * 1024,
  terminalMaxMessageBytes: 1024 * 1024,
  rpcMaxFileBytes: 48 * 1024 * 1024,
  commandTimeoutMs: 120_000,
  commandOutputCap: 16 * 1024 * 1024,
  zipMaxEntries: 10_000,
  zipMaxBytes: 1024 * 1024 * 1024,
  zipMaxRatio: 200,
  terminalRingBytes: 1024 * 1024,
  maxTerminals: 64,
  terminalReapMs: 30 * 60 * 1000,
  terminalStallMs: 10_000,
  installTimeoutMs: 30 * 60 * 1000,
  maxChats: 16,
  chatTimeoutMs: 30 * 60 * 1000,
  chatServerStartMs: 30_000,
  chatKillGraceMs: 2000,
  chatProbeTimeoutMs: 10_000,
  chatModelsTimeoutMs: 15_000,
  maxActiveRequests: 128,
  maxQueuedRequests: 4096,
  requestQueueMs: 5000,
};

/** What the runtime hands to every handler: storage, the root, limits and the optional Node-only adapters. */
export interface WorkspaceContext {
  readonly fs: FileSystem;
  /** The workspace root as an absolute real path (symlinks resolved). */
  readonly root: string;
  /** ori's "absolute paths are used as-is": containment is off. */
  readonly unrestricted: boolean;
  readonly limits: Limits;
  /**
   * The scoped token this request came with (docs/architecture.md#scoped-tokens); absent for the full token. Set by
   * the route guard (runtime/scoped-context.ts), read by what filters within a route: `/ws`'s commands.
   */
  readonly scope?: TokenScope;
  /** The user's home folder (for `~/.claude/skills`); absent on runtimes without one. */
  readonly home: string | undefined;
  /** Pseudo-terminals (Node only). */
  readonly pty: PtyAdapter | undefined;
  /** Named and unnamed terminal sessions over `pty` (core/terminals); absent without a pty adapter. */
  readonly terminals: TerminalManager | undefined;
  /** One-shot commands (`run_command`): Node only. */
  readonly processes: ProcessAdapter | undefined;
  /** Zip archives (`extract_zip`): yauzl on Node, the Web APIs' adapter on Workers. */
  readonly zip: ZipAdapter | undefined;
  /** Agent chat (core/chat): Node only, with a chat host. */
  readonly chat: ChatEngine | undefined;
  /** The runtime accepts WebSocket upgrades at all (the Node server); `upgrade` is this request's, when it is one. */
  readonly acceptsWebSockets?: boolean;
  /** Accepts a WebSocket upgrade for this request; absent when the runtime or request cannot upgrade. */
  readonly upgrade: Upgrader | undefined;
  /** Resolves a client path to an absolute real path inside the root (core/paths/resolve-inside-root.ts). */
  resolve(path: string): Promise<string>;
  /** Every change to the workspace, for subscribers (core/changes). */
  readonly changes: ChangeFeed;
  /** Agents' private copies (core/agents). */
  readonly agents: AgentCopies;
  /** The shared tree (no agent) or an agent's copy: what a read or write with `agent=` goes through. */
  view(agent: string | undefined): Promise<WorkspaceView>;
  /** Mints and checks Intentic's media tickets (core/media), one key per app instance. */
  readonly mediaTickets: MediaTickets;
  /** The search engine (core/search): `/workspace/search`, `/api/files/search`, `search_in_files`. */
  readonly search: SearchEngine | undefined;
  /** Runs git (Node: adapters/git/git-process.ts); absent where there are no processes (Workers). */
  readonly git: GitRunner | undefined;
  /** Intentic's clones into the root, one per name at a time (with `git`). */
  readonly repoCloner: RepoCloner | undefined;
  /** Intentic's sync of every repo (with `git`). */
  readonly repoSyncer: RepoSyncer | undefined;
  /**
   * Git state in the change feed (core/changes/git-state-source.ts, with an OS watcher): a handler that creates a
   * repo through the API (git_init, clone) calls `refresh` so the new repo's commits are reported from then on.
   */
  readonly gitState?: { refresh(): Promise<void> };
  /**
   * Installs, dev servers and test runs in named terminals (core/jobs, docs/intentic-projects.md#jobs-and-their-terminals); setup reads
   * `isInstalling`. Absent without terminals, a project model or the Node job host.
   */
  readonly jobs?: JobEngine;
  /** The project model (core/projects, docs/intentic-projects.md): setup, graph, modules, apps; FileSystem-only. */
  readonly projects: WorkspaceProjectModel | undefined;
  /** The search engine's tree-sitter parsers, for health's complexity and symbols (docs/intentic-projects.md#health); optional. */
  readonly parsers?: ParserAdapter;
  /** Health's per-file figures on worker threads (Node); preferred over `parsers`. */
  readonly healthFigures?: FiguresOf;
  /** Where health keeps those figures between runs (Node, with a persisted index). */
  readonly healthStore?: FiguresStore;
  /** Every change to the storage reaches `changes` (a watcher runs, or the caller says so): caches may trust it. */
  readonly changesAreSeen: boolean;
  /** App templates (core/projects/template-source.ts, docs/intentic-projects.md#templates): the configured or shipped source. */
  readonly templateSources?: TemplateSources;
  /** Add-apps jobs from those templates (core/jobs/add-apps.ts). */
  readonly appAdder?: AppAdder;
  /** The web panel's files (docs/panel.md#assets); absent: `/` and `/docs` answer that no panel is served. */
  readonly panel?: PanelAssets;
}

export type Handler = (request: Request, ctx: WorkspaceContext) => Response | Promise<Response>;
