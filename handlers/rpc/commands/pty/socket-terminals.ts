/**
 * The terminals one `/ws` socket is attached to, by session id: each is a client of the session manager
 * (core/terminals) whose output arrives as `pty-output {session_id, data, offset, length}` events — `data` is text
 * cut at whole UTF-8 characters, lossy for bytes that are not UTF-8 — and whose end is one `pty-exit
 * {session_id, code}`. All attachments are detached when the socket closes; the sessions run on.
 */
import type { Attachment, TerminalManager, TerminalSession } from '../../../../core/terminals/terminal-manager.ts';
import type { WorkspaceContext } from '../../../../runtime/context.ts';
import { TOO_SLOW_CLOSE_CODE } from '../../../terminals/terminal-socket.ts';
import { clipped, RpcError, type RpcConnection } from '../../command.ts';

const STATE_KEY = 'pty.attachments';

export function terminalsOf(ctx: WorkspaceContext): TerminalManager {
  if (!ctx.terminals) throw new RpcError('terminals are not available on this runtime');
  return ctx.terminals;
}

export function sessionOf(ctx: WorkspaceContext, sessionId: string): TerminalSession {
  const session = terminalsOf(ctx).get(sessionId);
  if (!session) throw new RpcError(`Session ${clipped(sessionId)} not found`);
  return session;
}

function attachmentsOf(connection: RpcConnection): Map<string, Attachment> {
  let attachments = connection.state.get(STATE_KEY) as Map<string, Attachment> | undefined;
  if (!attachments) {
    const created = new Map<string, Attachment>();
    attachments = created;
    connection.state.set(STATE_KEY, created);
    connection.onDrain(() => {
      for (const attachment of created.values()) attachment.drained();
    });
    connection.onClose(() => {
      for (const attachment of created.values()) attachment.detach();
      created.clear();
    });
  }
  return attachments;
}

/**
 * Attaches `session` to this socket from `from` (replacing an earlier attachment of it). An attachment holds
 * the session (an exited one is reaped only once no client is left), so it ends with the exit it delivers or
 * the socket's close, whichever comes first; a socket that closed while the command was in flight (pty_spawn
 * awaits the folder check) gets none.
 */
export function attachToSocket(connection: RpcConnection, sessionId: string, session: TerminalSession, from?: number): Attachment {
  if (connection.signal.aborted) throw new RpcError('the connection closed');
  const attachments = attachmentsOf(connection);
  attachments.get(sessionId)?.detach();
  // `ignoreBOM`: a U+FEFF the program printed is output like any other character, not swallowed.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  let attachment: Attachment | undefined;
  const forget = () => {
    if (attachment && attachments.get(sessionId) === attachment) attachments.delete(sessionId);
  };
  attachment = session.attach(
    {
      // `length` is the bytes `data` stands for: lossy UTF-8 (a 0xFF byte becomes a 3-byte U+FFFD) means the
      // text's own length cannot tell a reconnecting client where to resume (`from = offset + length`).
      send: (bytes, offset) =>
        connection.emit('pty-output', { session_id: sessionId, data: decoder.decode(bytes), offset, length: bytes.length }),
      get backlog() {
        return connection.backlog;
      },
      get inTransit() {
        return connection.inTransit;
      },
      exit: (code) => {
        connection.emit('pty-exit', { session_id: sessionId, code });
        forget();
        attachment?.detach();
      },
      drop: (reason) => {
        forget();
        connection.close(TOO_SLOW_CLOSE_CODE, reason.slice(0, 120));
      },
    },
    { from, utf8: true },
  );
  attachments.set(sessionId, attachment);
  return attachment;
}

export function detachFromSocket(connection: RpcConnection, sessionId: string): boolean {
  const attachments = attachmentsOf(connection);
  const attachment = attachments.get(sessionId);
  if (!attachment) return false;
  attachments.delete(sessionId);
  attachment.detach();
  return true;
}
