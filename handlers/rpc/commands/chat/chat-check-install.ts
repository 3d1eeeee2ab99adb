/**
 * `chat_check_install {command}` → boolean (docs/noide-protocol.md#chat_check_install): whether the agent's CLI
 * is found in the documented places and names itself in `run --help`. Not an agent → false.
 */
import { z } from 'zod';
import { isChatAgent } from '../../../../core/chat/chat-types.ts';
import { defineCommand } from '../../command.ts';
import { chatOf } from './chat-of.ts';

export const chatCheckInstall = defineCommand({
  args: { command: z.string() },
  async run({ command }, { ctx }) {
    const chat = chatOf(ctx);
    return isChatAgent(command) ? chat.checkInstall(command) : false;
  },
});
