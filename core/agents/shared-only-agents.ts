/**
 * PLACEHOLDER AgentCopies (core/agents/workspace-view.ts) that knows no agents: every view is the shared
 * tree. OWNER: the agent-copies work replaces it with real copies and the overlay FileSystem.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { WorkspaceError } from '../../runtime/errors/workspace-error.ts';
import { checkAgentId, unknownAgent, type AgentCopies, type WorkspaceView } from './workspace-view.ts';

export function sharedOnlyAgents(
  fs: FileSystem,
  root: () => Promise<string>,
  resolve: (path: string) => Promise<string>,
  dir: string,
): AgentCopies {
  return {
    dir,
    async view(agent) {
      if (agent !== undefined) {
        checkAgentId(agent);
        throw unknownAgent(agent);
      }
      const view: WorkspaceView = { fs, root: await root(), agent: undefined, resolve, isShared: async () => true };
      return view;
    },
    async create(agent) {
      checkAgentId(agent);
      throw new WorkspaceError('not-implemented', 'agent copies are not available yet');
    },
    async remove(agent) {
      checkAgentId(agent);
      throw unknownAgent(agent);
    },
  };
}
