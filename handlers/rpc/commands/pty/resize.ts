import { z } from 'zod';
import { defineCommand } from '../../command.ts';
import { terminalDimension } from '../../../terminals/terminal-input.ts';
import { sessionOf } from './socket-terminals.ts';

/** `pty_resize {sessionId, cols, rows}` → null (an exited session ignores it). */
export const ptyResize = defineCommand({
  args: { sessionId: z.string(), cols: terminalDimension, rows: terminalDimension },
  run({ sessionId, cols, rows }, { ctx }) {
    sessionOf(ctx, sessionId).resize(cols, rows);
    return null;
  },
});
