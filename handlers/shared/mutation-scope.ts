/**
 * What the tree mutations of every dialect share (Intentic's dir, entry, move, copy and upload; the /ws
 * protocol's create, rename, copy, delete and writes): the view a request writes through (the
 * shared tree, or with `agent` that agent's copy only) and the two ways a client path becomes an absolute one.
 */
import { z } from 'zod';
import type { WorkspaceView } from '../../core/agents/workspace-view.ts';
import { refuseAgentsFolder, type AgentsFolderRule } from '../../core/tree-ops/agents-folder-guard.ts';
import { resolveEntry } from '../../core/tree-ops/resolve-entry.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { resolveInsideRoot } from '../../core/paths/resolve-inside-root.ts';

export { agentField } from './agent-field.ts';

/** A path field of a mutation's body: Intentic's contract declares every one non-empty (docs/intentic.md#input-bounds). */
export const pathField = (name: string) => z.string({ error: `${name} must be a string` }).min(1, `${name} is empty`);

export interface MutationScope {
  readonly view: WorkspaceView;
  /**
   * The entry a delete, move or copy acts on: the last segment is not followed (a link is acted on itself).
   * Refuses escapes, the workspace root (`cannot <action> the workspace root`) and the agents folder.
   */
  entry(path: string, action: string, rule: AgentsFolderRule): Promise<string>;
  /** A folder to create: links on the way are followed, as for any write. Refuses escapes and the agents folder. */
  folder(path: string): Promise<string>;
  /** The agents folder's real path: nothing a mutation writes may land inside it. */
  readonly agentsDir: string;
}

export async function mutationScope(ctx: WorkspaceContext, agent: string | undefined): Promise<MutationScope> {
  const view = await ctx.view(agent);
  // The agents folder is named by the options, not necessarily by its real path (a symlinked root); compare
  // real paths, as containment does. It lives in the shared tree whichever view writes.
  const agentsDir = await resolveInsideRoot(ctx.fs, ctx.root, ctx.agents.dir, { unrestricted: true });
  return {
    view,
    agentsDir,
    async entry(path, action, rule) {
      const entry = await resolveEntry(view, path, action);
      refuseAgentsFolder(entry, agentsDir, rule, path);
      return entry;
    },
    async folder(path) {
      const folder = await view.resolve(path);
      refuseAgentsFolder(folder, agentsDir, 'not-inside', path);
      return folder;
    },
  };
}
