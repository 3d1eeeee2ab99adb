/**
 * One `/ws` socket: parses frames, runs each request concurrently (a slow command never holds up a fast one;
 * replies go out as they finish, matched by id), answers the keepalive, and renders failures as the
 * protocol's error strings.
 */
import { isFsError } from '../../adapters/fs/fs-error.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { toWorkspaceError, WorkspaceError } from '../../runtime/errors/workspace-error.ts';
import type { ServerSocket } from '../../runtime/websocket.ts';
import { RpcError, type RpcCommand, type RpcConnection } from './command.ts';
import { eventFrame, parseFrame, PONG, replyError, replyOk } from './frames.ts';

export function runRpcConnection(socket: ServerSocket, ctx: WorkspaceContext, commands: ReadonlyMap<string, RpcCommand>): void {
  const aborter = new AbortController();
  const closeListeners: (() => void)[] = [];
  const drainListeners = new Set<() => void>();
  let open = true;

  const connection: RpcConnection = {
    emit(event, payload) {
      if (open) socket.send(eventFrame(event, payload));
    },
    onClose(listener) {
      if (open) closeListeners.push(listener);
      else listener();
    },
    signal: aborter.signal,
    get backlog() {
      return socket.bufferedAmount;
    },
    onDrain(listener) {
      drainListeners.add(listener);
      return () => drainListeners.delete(listener);
    },
    close(code, reason) {
      socket.close(code, reason);
    },
    state: new Map(),
  };

  socket.onDrain(() => {
    for (const listener of [...drainListeners]) listener();
  });
  socket.onClose(() => {
    open = false;
    aborter.abort();
    drainListeners.clear();
    for (const listener of closeListeners.splice(0)) {
      try {
        listener();
      } catch (error) {
        console.error('workspace-api: /ws close handler failed:', error);
      }
    }
  });

  const send = (text: string) => {
    if (open) socket.send(text);
  };

  socket.onMessage((data, isBinary) => {
    if (isBinary || typeof data !== 'string') {
      send(replyError(0, 'invalid request: frames are JSON text, not binary'));
      return;
    }
    const frame = parseFrame(data);
    switch (frame.kind) {
      case 'ping':
        send(PONG);
        return;
      case 'event':
        return;
      case 'invalid':
        send(replyError(0, `invalid request: ${frame.reason}`));
        return;
      case 'request': {
        const command = commands.get(frame.command);
        if (!command) {
          send(replyError(frame.id, `unknown command: ${frame.command}`));
          return;
        }
        command
          .invoke(frame.args, { ctx, connection })
          .then(
            (result) => replyOk(frame.id, result),
            (error: unknown) => replyError(frame.id, errorText(error, frame.command)),
          )
          // A result JSON cannot carry (a BigInt, a cycle) must not become an unhandled rejection: that ends the process.
          .catch((error: unknown) => replyError(frame.id, errorText(error, frame.command)))
          .then(send);
      }
    }
  });
}

/** The error string for a failed command: ours verbatim, the core's message, never a stack. */
function errorText(error: unknown, command: string): string {
  if (error instanceof RpcError) return error.message;
  if (error instanceof WorkspaceError || isFsError(error)) return toWorkspaceError(error).message;
  console.error(`workspace-api: /ws command ${command} failed:`, error);
  return 'internal error';
}
