/**
 * The agents folder (where agents' private copies live) is not part of the workspace tree, even when it sits
 * inside the root: the tree mutations must not reach into it, and a source that contains it would drag every
 * agent's copy along (delete them all, move them away, or duplicate them).
 */
import { isInside } from '../../adapters/fs/posix-path.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';

export type AgentsFolderRule =
  /** Creating or landing there: refused at or below the agents folder. */
  | 'not-inside'
  /** Deleting, moving or copying from there: also refused for a folder that contains the agents folder. */
  | 'not-inside-or-containing';

/** `entry` and `agentsDir` are absolute real paths; `path` is the client's spelling, for the message. */
export function refuseAgentsFolder(entry: string, agentsDir: string, rule: AgentsFolderRule, path: string): void {
  if (isInside(agentsDir, entry)) {
    throw new WorkspaceError('bad-request', `not part of the workspace tree (the agents folder): ${path}`, { path });
  }
  if (rule === 'not-inside-or-containing' && isInside(entry, agentsDir)) {
    throw new WorkspaceError('bad-request', `contains the agents folder, which is not part of the workspace tree: ${path}`, {
      path,
    });
  }
}
