/**
 * `chat_cancel {id}` (docs/noide-protocol.md#chat_cancel): `{cancelled: true}` for a running chat (TERM to its
 * group, KILL 2 s later; its `done` follows); `{cancelled: false, reason: "Process not found"}` for a chat still
 * starting (stopped as soon as it spawns) or an id no chat has. Any socket may cancel any chat of the daemon.
 */
import { z } from 'zod';
import { defineCommand } from '../../command.ts';
import { chatOf } from './chat-of.ts';

export const chatCancel = defineCommand({
  // The id is the chat's `rid`: a string; a number the client kept from its own request id counts as its text.
  args: { id: z.union([z.string(), z.number().transform(String)]) },
  run({ id }, { ctx }) {
    return chatOf(ctx).cancel(id);
  },
});
