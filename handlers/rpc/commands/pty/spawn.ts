import { z } from 'zod';
import { TERMINAL_NAME_PATTERN } from '../../../../core/terminals/terminal-manager.ts';
import { WorkspaceError } from '../../../../core/errors/workspace-error.ts';
import { terminalDimension, terminalFolder } from '../../../terminals/terminal-input.ts';
import { defineCommand, RpcError } from '../../command.ts';
import { attachToSocket, terminalsOf } from './socket-terminals.ts';

/**
 * `pty_spawn {sessionId, shell?, cwd?, cols?=80, rows?=24}` → `{id, pid}` (docs/noide-protocol.md#terminals): a named session of the
 * manager, attached to this socket from its first byte. A running session of that id is `Session <id> already
 * exists` (reconnect with `pty_attach`); an exited one is replaced.
 */
export const ptySpawn = defineCommand({
  args: {
    sessionId: z.string().regex(TERMINAL_NAME_PATTERN, "a session id is 1–128 of letters, digits, '.', '_', '-'"),
    shell: z.string().min(1).optional(),
    cwd: z.string().optional(),
    cols: terminalDimension.default(80),
    rows: terminalDimension.default(24),
  },
  async run({ sessionId, shell, cwd, cols, rows }, { ctx, connection }) {
    const terminals = terminalsOf(ctx);
    const folder = await terminalFolder(ctx, cwd);
    const existing = terminals.get(sessionId);
    if (existing?.running) throw new RpcError(`Session ${sessionId} already exists`);
    if (existing) await terminals.remove(sessionId);
    let session;
    try {
      session = terminals.start({ name: sessionId, shell, cwd: folder, cols, rows });
    } catch (error) {
      // Another pty_spawn of this id took the name while this one awaited the folder or the old session's end.
      if (error instanceof WorkspaceError && error.code === 'conflict') throw new RpcError(`Session ${sessionId} already exists`);
      throw error;
    }
    attachToSocket(connection, sessionId, session, 0);
    return { id: sessionId, pid: session.pid };
  },
});
