import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../core/errors/workspace-error.ts';
import { serveTerminalSocket } from '../terminals/terminal-socket.ts';

/**
 * `GET /ws/terminal` (docs/ori.md#terminal) — upgrades to a WebSocket running one shell in the workspace root: an
 * unnamed session of the terminal manager, which dies with its socket. Needs a pty adapter (501 without
 * one) and a WebSocket upgrade the runtime can accept (426 otherwise).
 */
export function terminal(request: Request, ctx: WorkspaceContext): Response {
  const terminals = ctx.terminals;
  if (!terminals) throw new WorkspaceError('not-implemented', 'terminals are not available on this runtime');
  const wantsWebSocket = request.headers.get('upgrade')?.toLowerCase() === 'websocket';
  if (!wantsWebSocket || !ctx.upgrade) {
    // RFC 9110 §15.5.22: a 426 names the protocol to switch to.
    return jsonResponse({ error: 'this endpoint needs a WebSocket upgrade' }, 426, { upgrade: 'websocket' });
  }
  const cwd = ctx.root;
  return ctx.upgrade(
    (socket) => {
      let session;
      try {
        session = terminals.start({ cwd });
      } catch {
        socket.close(1011, 'could not start a shell');
        return;
      }
      serveTerminalSocket(socket, session, { announce: false });
    },
    { maxMessageBytes: ctx.limits.terminalMaxMessageBytes },
  );
}
