import type { ChatEngine } from '../../../../core/chat/chat-types.ts';
import type { WorkspaceContext } from '../../../../runtime/context.ts';
import { RpcError } from '../../command.ts';

/** The engine, or the reply error of a runtime that cannot run the agents' CLIs (Workers). */
export function chatOf(ctx: WorkspaceContext): ChatEngine {
  if (!ctx.chat) throw new RpcError('agent chat needs a machine that can run the agent CLIs: not available on this runtime');
  return ctx.chat;
}
