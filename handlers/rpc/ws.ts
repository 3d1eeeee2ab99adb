import type { WorkspaceContext } from '../../runtime/context.ts';
import { jsonResponse } from '../../runtime/errors/render.ts';
import { commandsFor } from './command-table.ts';
import { runRpcConnection } from './connection.ts';

/**
 * `GET /ws` (docs/noide-protocol.md#connecting) — upgrades to the NoIDE WebSocket JSON protocol. The token comes as `?token=` on the
 * upgrade (a bad one is HTTP 401 before any socket exists); messages are capped at `rpcMaxMessageBytes`
 * (past it the socket closes with 1009).
 */
export function rpcSocket(request: Request, ctx: WorkspaceContext): Response {
  const wantsWebSocket = request.headers.get('upgrade')?.toLowerCase() === 'websocket';
  if (!wantsWebSocket || !ctx.upgrade) {
    return jsonResponse({ error: 'this endpoint needs a WebSocket upgrade' }, 426, { upgrade: 'websocket' });
  }
  return ctx.upgrade((socket) => runRpcConnection(socket, ctx, commandsFor(ctx.scope)), {
    maxMessageBytes: ctx.limits.rpcMaxMessageBytes,
  });
}
