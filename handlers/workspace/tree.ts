import { z } from 'zod';
import { createIgnoreRules } from '../../core/ignore/ignore-rules.ts';
import { treePlace } from '../../core/tree/tree-place.ts';
import { walkTree } from '../../core/tree/walk-tree.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { parseQuery } from '../../runtime/validation.ts';
import { agentField } from '../shared/agent-field.ts';

export const treeQuery = z.object({ agent: agentField });

/**
 * `GET /workspace/tree[?agent=]` (Intentic, docs/intentic.md#tree) → `{root, tree, hidden}`: the workspace as one
 * breadth-first walk under `limits.maxTreeEntries` (core/tree/walk-tree.ts holds every rule); `root` is the
 * workspace root's real path. The agents' folder is never listed.
 */
export async function workspaceTree(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { agent } = parseQuery(request, treeQuery);
  const view = await ctx.view(agent);
  const place = await treePlace(view.fs, view.root, ctx.agents.dir);
  const { tree, hidden } = await walkTree(place, {
    budget: ctx.limits.maxTreeEntries,
    rules: createIgnoreRules(view.fs, view.root),
  });
  return jsonResponse({ root: view.root, tree, hidden });
}
