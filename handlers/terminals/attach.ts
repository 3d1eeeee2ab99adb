import { z } from 'zod';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { parseQuery } from '../../runtime/validation.ts';
import { nameParam, terminalsOf } from './terminal-input.ts';
import { serveTerminalSocket } from './terminal-socket.ts';

export const attachQuery = z.object({
  from: z
    .string()
    .regex(/^\d{1,15}$/, 'from must be a byte offset (digits)')
    .transform(Number)
    .optional(),
});

/**
 * `GET /terminals/{name}?from=N` (docs/terminals.md#the-terminal-socket). As a WebSocket: first a text frame
 * `{"type":"attached","from","end","truncated"}`, then the output from `from` (default: the ring's start) as
 * binary frames and live, `input`/`resize` text frames in, and at exit `{"type":"exit","code"}` then close
 * 1000. As a plain GET: the terminal's description. 404 for an unknown name, 400 for a bad `from` (or
 * one past the end) — both before any upgrade.
 */
export function attachTerminal(request: Request, ctx: WorkspaceContext): Response {
  const terminals = terminalsOf(ctx);
  const name = nameParam(request);
  const { from } = parseQuery(request, attachQuery);
  const session = terminals.get(name);
  if (!session) throw new WorkspaceError('not-found', `no terminal named ${name}`, { name });
  const end = session.info().end;
  if (from !== undefined && from > end) {
    throw new WorkspaceError('bad-request', `from ${from} is past the end of the output (${end})`, { from, end });
  }
  const wantsWebSocket = request.headers.get('upgrade')?.toLowerCase() === 'websocket';
  if (!wantsWebSocket) return jsonResponse(session.info());
  if (!ctx.upgrade) return jsonResponse({ error: 'this runtime cannot accept a WebSocket upgrade' }, 426, { upgrade: 'websocket' });
  return ctx.upgrade(
    (socket) => {
      // The session may have been removed between the answer and the handshake.
      const current = terminals.get(name);
      if (current !== session) {
        socket.close(1011, `terminal ${name} is gone`);
        return;
      }
      serveTerminalSocket(socket, session, { from, announce: true });
    },
    { maxMessageBytes: ctx.limits.terminalMaxMessageBytes },
  );
}
