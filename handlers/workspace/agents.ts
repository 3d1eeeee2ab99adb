import { z } from 'zod';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { lastPathSegment, parseJsonBody, parsePathParams } from '../../runtime/validation.ts';
import { agentId } from '../shared/agent-field.ts';

export const createAgentBody = z.object({ agent: agentId });
export const deleteAgentParams = z.object({ agent: agentId });

/**
 * `POST /workspace/agents {agent}` → `{ok: true}` once the agent's private copy exists (docs/intentic.md#agents,
 * ours): a git worktree on branch `agent/<id>`, or a plain copy (core/agents/agent-copies.ts). CONFLICT if the
 * agent exists, PAYLOAD_TOO_LARGE if a plain copy would pass the copy caps.
 */
export async function workspaceCreateAgent(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { agent } = await parseJsonBody(request, createAgentBody, ctx.limits.maxBodyBytes);
  await ctx.agents.create(agent);
  return jsonResponse({ ok: true });
}

/** `DELETE /workspace/agents/{agent}` → `{ok: true}`; an unknown agent is NOT_FOUND. */
export async function workspaceDeleteAgent(request: Request, ctx: WorkspaceContext): Promise<Response> {
  const { agent } = parsePathParams({ agent: lastPathSegment(request, 'the agent id') }, deleteAgentParams);
  await ctx.agents.remove(agent);
  return jsonResponse({ ok: true });
}
