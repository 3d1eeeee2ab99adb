import { discoverSkills } from '../../core/skills/discover-skills.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';

/** `GET /api/skills` → `{skills}` (docs/ori.md#skills; discovery in core/skills). */
export async function listSkills(_request: Request, ctx: WorkspaceContext): Promise<Response> {
  return jsonResponse({ skills: await discoverSkills(ctx.fs, ctx.root, ctx.home) });
}
