import { z } from 'zod';
import { defineCommand } from '../../command.ts';
import { sessionOf } from './socket-terminals.ts';

const dimension = z.number().int().min(1).max(0xffff);

/** `pty_resize {sessionId, cols, rows}` → null (an exited session ignores it). */
export const ptyResize = defineCommand({
  args: { sessionId: z.string(), cols: dimension, rows: dimension },
  run({ sessionId, cols, rows }, { ctx }) {
    sessionOf(ctx, sessionId).resize(cols, rows);
    return null;
  },
});
