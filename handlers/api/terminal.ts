import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { WorkspaceError } from '../../runtime/errors/workspace-error.ts';
import { runTerminalSession } from './terminal-session.ts';

const INITIAL_COLS = 80;
const INITIAL_ROWS = 24;

/**
 * `GET /ws/terminal` (seed 000) — upgrades to a WebSocket running one shell in the workspace root.
 * Needs a pty adapter (501 without one) and a WebSocket upgrade the runtime can accept (426 otherwise).
 */
export function terminal(request: Request, ctx: WorkspaceContext): Response {
  const ptys = ctx.pty;
  if (!ptys) throw new WorkspaceError('not-implemented', 'terminals are not available on this runtime');
  const wantsWebSocket = request.headers.get('upgrade')?.toLowerCase() === 'websocket';
  if (!wantsWebSocket || !ctx.upgrade) {
    // RFC 9110 §15.5.22: a 426 names the protocol to switch to.
    return jsonResponse({ error: 'this endpoint needs a WebSocket upgrade' }, 426, { upgrade: 'websocket' });
  }
  const cwd = ctx.root;
  return ctx.upgrade((socket) => runTerminalSession(socket, ptys, { cwd, cols: INITIAL_COLS, rows: INITIAL_ROWS }));
}
