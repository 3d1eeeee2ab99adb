import { z } from 'zod';
import { defineCommand } from '../../command.ts';
import { attachToSocket, sessionOf } from './socket-terminals.ts';

/**
 * `pty_attach {sessionId, from?}` → `{pid, from, end, truncated}` (the protocol's newer version): then the
 * output from `from` (default: the ring's start) as `pty-output` events, and live; an exited session replays,
 * then sends its `pty-exit`. Attaching again on the same socket replaces the earlier attachment.
 */
export const ptyAttach = defineCommand({
  args: { sessionId: z.string(), from: z.number().int().min(0).optional() },
  run({ sessionId, from }, { ctx, connection }) {
    const session = sessionOf(ctx, sessionId);
    const attachment = attachToSocket(connection, sessionId, session, from);
    return { pid: session.pid, from: attachment.from, end: attachment.end, truncated: attachment.truncated };
  },
});
