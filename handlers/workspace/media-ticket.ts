import { z } from 'zod';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { parseJsonBody } from '../../runtime/validation.ts';
import { agentField } from '../shared/agent-field.ts';
import { resolveServedFile, servedPath } from './served-file.ts';

export const mediaTicketBody = z.object({ path: servedPath, agent: agentField });

/**
 * `POST /workspace/media-ticket {path[, agent]}` → `{ticket, expiresAt}` (docs/intentic.md#media): a pass for
 * `GET /workspace/media`, bound to the one file this request resolves (core/media/media-tickets.ts). Minting
 * checks the file as streaming will: a missing file is NOT_FOUND, a folder or special file BAD_REQUEST, an
 * escaping path BAD_REQUEST — so a caller learns now, not mid-playback, that the file cannot be streamed.
 */
export async function workspaceMediaTicket(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { path, agent } = await parseJsonBody(request, mediaTicketBody, ctx.limits.maxBodyBytes);
  const { file } = await resolveServedFile(ctx, path, agent);
  return jsonResponse(await ctx.mediaTickets.mint({ file, agent }));
}
