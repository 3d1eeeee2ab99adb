import { z } from 'zod';
import { defineCommand } from '../../command.ts';
import { detachFromSocket, sessionOf } from './socket-terminals.ts';

/** `pty_detach {sessionId}` → null: no more events for it on this socket; the session runs on. */
export const ptyDetach = defineCommand({
  args: { sessionId: z.string() },
  run({ sessionId }, { ctx, connection }) {
    sessionOf(ctx, sessionId);
    detachFromSocket(connection, sessionId);
    return null;
  },
});
