import { z } from 'zod';
import { defineCommand, RpcError } from '../../command.ts';
import { sessionOf } from './socket-terminals.ts';

/** `pty_write {sessionId, data}` → null: keystrokes or pasted text. */
export const ptyWrite = defineCommand({
  args: { sessionId: z.string(), data: z.string() },
  run({ sessionId, data }, { ctx }) {
    const session = sessionOf(ctx, sessionId);
    if (!session.running) throw new RpcError(`Session ${sessionId} has exited`);
    session.write(data);
    return null;
  },
});
