import { z } from 'zod';
import { isInside } from '../../adapters/fs/posix-path.ts';
import { createIgnoreRules } from '../../core/ignore/ignore-rules.ts';
import { listChildren } from '../../core/tree/list-children.ts';
import { treePlace, workspaceRelative } from '../../core/tree/tree-place.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { parseQuery } from '../../runtime/validation.ts';
import { agentField } from '../shared/agent-field.ts';

export const childrenQuery = z.object({
  // Non-empty, as the contract declares (the root is "." or its absolute path).
  path: z.string({ error: 'missing path' }).min(1, 'path is empty'),
  agent: agentField,
});

const NOTHING = { entries: [], hidden: 0 };

/**
 * `GET /workspace/children?path=[&agent=]` (Intentic, docs/intentic.md#children) → `{entries, hidden}`: one folder's direct
 * entries in the tree's shape (core/tree/list-children.ts), capped by `limits.maxTreeEntries`. Entries are
 * presented under the path as asked (a folder opened through a link lists `link/child`).
 *
 * docs/intentic.md#children: a path outside the workspace — lexically, or through a symlink that leaves it — is
 * `{entries: [], hidden: 0}`, not an error (a client expands an outside link like any folder); so is the
 * agents' folder, which is not part of the tree. A missing folder is NOT_FOUND, a file BAD_REQUEST.
 */
export async function workspaceChildren(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { path, agent } = parseQuery(request, childrenQuery);
  const view = await ctx.view(agent);
  const rel = workspaceRelative(view.root, path);
  if (rel === undefined) return jsonResponse(NOTHING);
  let real: string;
  try {
    real = await view.resolve(path);
  } catch (error) {
    if (error instanceof WorkspaceError && error.code === 'outside-workspace') return jsonResponse(NOTHING);
    throw error;
  }
  const place = await treePlace(view.fs, view.root, ctx.agents.dir);
  // Checked here too: in unrestricted mode the resolver lets everything through.
  if (!isInside(view.root, real) || (place.excluded !== undefined && isInside(place.excluded, real))) {
    return jsonResponse(NOTHING);
  }
  if ((await view.fs.stat(real)).type !== 'dir') throw new WorkspaceError('bad-request', 'not a directory');
  const listing = await listChildren(place, real, rel, {
    budget: ctx.limits.maxTreeEntries,
    rules: createIgnoreRules(view.fs, view.root),
  });
  return jsonResponse(listing);
}
