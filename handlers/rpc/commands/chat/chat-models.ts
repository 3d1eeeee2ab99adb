/**
 * `chat_models {agent, apiKey?}` (docs/noide-protocol.md#chat_models): the agent's model list, as
 * `[{id, label}]`. The engine owns the rules and the error texts (core/chat/model-lists.ts); this row only
 * validates and turns a ChatError into the reply's error.
 */
import { z } from 'zod';
import { ChatError } from '../../../../core/chat/chat-types.ts';
import { RpcError, defineCommand } from '../../command.ts';
import { chatOf } from './chat-of.ts';

export const chatModels = defineCommand({
  args: { agent: z.string(), apiKey: z.string().optional() },
  async run({ agent, apiKey }, { ctx }) {
    const chat = chatOf(ctx);
    try {
      return await chat.models(agent, apiKey);
    } catch (error) {
      if (error instanceof ChatError) throw new RpcError(error.message);
      throw error;
    }
  },
});
