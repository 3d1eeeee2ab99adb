import { z } from 'zod';
import { createIgnoreRules } from '../../core/ignore/ignore-rules.ts';
import { resolveWrittenPath } from '../../core/resolve/resolve-written-path.ts';
import { treePlace } from '../../core/tree/tree-place.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { parseQuery } from '../../runtime/validation.ts';
import { agentField } from '../shared/agent-field.ts';

const MAX_WRITTEN_PATH = 512;

export const resolveQuery = z.object({
  // 1–512 characters, as the contract declares: a longer reference is refused before the tail walk starts.
  path: z
    .string({ error: 'missing path' })
    .min(1, 'path is empty')
    .max(MAX_WRITTEN_PATH, `path must be at most ${MAX_WRITTEN_PATH} characters`)
    .refine((path) => !path.includes('\0'), 'path contains a NUL byte'),
  agent: agentField,
});

/**
 * `GET /workspace/resolve?path=[&agent=]` (Intentic, docs/intentic.md#resolve) → `{path}` (root-relative) or `{}`: the file a
 * path written in prose means — as written, else the best tail (core/resolve/resolve-written-path.ts holds the
 * rule). A path outside the workspace is not an error here: its tails are still looked up, and the answer is
 * always a file inside the workspace. The tail walk is bounded by `limits.maxSearchEntries`.
 */
export async function workspaceResolve(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { path, agent } = parseQuery(request, resolveQuery);
  const view = await ctx.view(agent);
  const found = await resolveWrittenPath(await treePlace(view.fs, view.root, ctx.agents.dir), path, {
    resolveInside: (written) => view.resolve(written),
    rules: createIgnoreRules(view.fs, view.root),
    budget: ctx.limits.maxSearchEntries,
  });
  return jsonResponse(found === undefined ? {} : { path: found });
}
