import { z } from 'zod';
import { defineCommand } from '../../command.ts';
import { sessionOf } from './socket-terminals.ts';

/**
 * `pty_kill {sessionId}` → null once the session's process groups are gone; attached sockets get its one
 * `pty-exit`. The exited session stays (replayable with `pty_attach`) until reaped or replaced.
 */
export const ptyKill = defineCommand({
  args: { sessionId: z.string() },
  async run({ sessionId }, { ctx }) {
    await sessionOf(ctx, sessionId).kill();
    return null;
  },
});
