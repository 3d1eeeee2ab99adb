/**
 * `chat_models {agent, apiKey?}` (docs/noide-protocol.md#agent-chat): the agent's model list, as
 * `[{id, label}]`. The engine owns the rules and the error texts (core/chat/model-lists.ts); this row only
 * validates and turns a ChatError into the reply's error.
 */
import { z } from 'zod';
import { ChatError, type ChatEngine } from '../../../../core/chat/chat-types.ts';
import type { WorkspaceContext } from '../../../../runtime/context.ts';
import { RpcError, defineCommand } from '../../command.ts';

/** The context with agent chat, which only runtimes that can run the agents' CLIs provide. */
type ChatContext = WorkspaceContext & { chat?: ChatEngine };

export const chatModels = defineCommand({
  args: { agent: z.string(), apiKey: z.string().optional() },
  async run({ agent, apiKey }, { ctx }) {
    const chat = (ctx as ChatContext).chat;
    if (!chat) throw new RpcError('agent chat is not available on this runtime');
    try {
      return await chat.models(agent, apiKey);
    } catch (error) {
      if (error instanceof ChatError) throw new RpcError(error.message);
      throw error;
    }
  },
});
