/**
 * What a handler reads and writes through: the shared tree, or one agent's private copy of it (docs/intentic.md#agents).
 * The agreed API; the implementation is ./agent-copies.ts.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import type { Change } from '../changes/change-feed.ts';

/** docs/intentic.md#agents: agent ids. */
export const AGENT_ID_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/;

export interface WorkspaceView {
  /** The shared FileSystem, or the agent's overlay (its own files first, the shared tree beneath). */
  readonly fs: FileSystem;
  /** The workspace root (a real absolute path); an agent's view presents its copy at the same paths. */
  readonly root: string;
  readonly agent: string | undefined;
  /** Client path → absolute real path inside the root, through this view's fs (core/paths). */
  resolve(path: string): Promise<string>;
  /**
   * Whether the shared tree (not the agent's copy) answers for `path` (absolute, as `resolve` returns it, or
   * root-relative); always true without an agent, false for a path the view does not have.
   */
  isShared(path: string): Promise<boolean>;
  /**
   * A change from the feed (core/changes) as this view sees it: its path as the view presents it, or
   * undefined when the view does not see it (another agent's copy; a shared file this agent has its own copy
   * of). See ./agent-changes.ts. The views AgentCopies hands out always have it; a hand-made view (a test's)
   * may leave it out, meaning "every change as it is".
   */
  mapChange?(change: Change): Promise<Change | undefined>;
}

export interface AgentCopies {
  /** The view for `agent` (undefined: the shared tree). Malformed id → bad-request, unknown → not-found. */
  view(agent: string | undefined): Promise<WorkspaceView>;
  /** Makes the agent's copy; `conflict` if it exists. */
  create(agent: string): Promise<void>;
  /** Removes the agent's copy; `not-found` if there is none. */
  remove(agent: string): Promise<void>;
  /** The agents that exist (their copies' folders), sorted. */
  list(): Promise<string[]>;
  /** The folder agent copies live in (absolute); never listed or searched. */
  readonly dir: string;
}

export function checkAgentId(agent: string): void {
  if (!AGENT_ID_PATTERN.test(agent)) {
    throw new WorkspaceError('bad-request', `invalid agent id: ${JSON.stringify(agent)}`, { agent });
  }
}

export function unknownAgent(agent: string): WorkspaceError {
  return new WorkspaceError('not-found', `unknown agent: ${agent}`, { agent });
}
