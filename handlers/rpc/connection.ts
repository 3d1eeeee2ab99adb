/**
 * One `/ws` socket: parses frames, runs requests concurrently (replies go out as they finish, matched by id),
 * answers the keepalive, and renders failures as the protocol's error strings. Light commands run the moment
 * they arrive, so a slow command never holds up a fast one; heavy ones go through the connection's scheduler
 * (scheduler.ts), which bounds how many run and how much the daemon holds for a client that does not read.
 */
import { isFsError } from '../../adapters/fs/fs-error.ts';
import type { WorkspaceContext } from '../../runtime/context.ts';
import { toWorkspaceError, WorkspaceError } from '../../core/errors/workspace-error.ts';
import { GitRunError } from '../../core/git/git-runner.ts';
import type { ServerSocket } from '../../runtime/websocket.ts';
import { INTERNAL_ERROR_TEXT, logUnexpectedError } from '../../runtime/errors/unexpected-error.ts';
import { clipped, RpcError, type RpcCommand, type RpcConnection } from './command.ts';
import { eventFrame, parseFrame, PONG, replyError, replyOk } from './frames.ts';
import { defaultRpcSchedule, HeavyScheduler, tooManyRequestsText, type RpcSchedule } from './scheduler.ts';

export function runRpcConnection(
  socket: ServerSocket,
  ctx: WorkspaceContext,
  commands: ReadonlyMap<string, RpcCommand>,
  schedule: RpcSchedule = defaultRpcSchedule,
): void {
  const heavy = new HeavyScheduler(schedule, () => socket.bufferedAmount);
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
    get inTransit() {
      return socket.inTransitBytes;
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
    heavy.drained();
    for (const listener of [...drainListeners]) listener();
  });
  socket.onClose(() => {
    open = false;
    heavy.close();
    aborter.abort();
    drainListeners.clear();
    for (const listener of closeListeners.splice(0)) {
      try {
        listener();
      } catch (error) {
        logUnexpectedError('a /ws close handler', error);
      }
    }
  });

  const send = (text: string) => {
    if (!open) return;
    socket.send(text);
    // Every reply is bounded, but a client can send small requests forever and never read the answers:
    // past this much unread, it is not a client but a leak, and the socket goes.
    if (socket.bufferedAmount > MAX_UNREAD_BYTES) socket.close(1008, 'the client does not read its replies');
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
          send(replyError(frame.id, `unknown command: ${clipped(frame.command)}`));
          return;
        }
        const { id, args } = frame;
        const run = () =>
          command
            .invoke(args, { ctx, connection, requestId: id })
            .then(
              (result) => replyOk(id, result),
              (error: unknown) => replyError(id, errorText(error, frame.command)),
            )
            // A result JSON cannot carry (a BigInt, a cycle) must not become an unhandled rejection: that ends the process.
            .catch((error: unknown) => replyError(id, errorText(error, frame.command)))
            .then(send);
        if (command.weight === 'light') void run();
        else {
          const refusal = heavy.submit(run, data.length);
          if (refusal) send(replyError(id, tooManyRequestsText(schedule, refusal)));
        }
      }
    }
  });
}

/**
 * Unread replies past this close the socket. Far above what the scheduler lets honest traffic queue (16 MiB
 * before a heavy command may start, then at most 4 replies of a whole-file answer each).
 */
const MAX_UNREAD_BYTES = 512 * 1024 * 1024;

/** The error string for a failed command: ours verbatim, the core's message, never a stack. */
function errorText(error: unknown, command: string): string {
  if (error instanceof RpcError) return error.message;
  // Written for the client: `git status timed out after 120 s`, `Failed to run git: …`.
  if (error instanceof GitRunError) return error.message;
  if (error instanceof WorkspaceError || isFsError(error)) return toWorkspaceError(error).message;
  logUnexpectedError(`/ws command ${command}`, error);
  return INTERNAL_ERROR_TEXT;
}
