/**
 * A terminal session on a WebSocket: the frames of ori's `/ws/terminal`, shared by the named
 * `/terminals/{name}` socket (docs/terminals.md#the-terminal-socket). Output goes out as binary frames of raw pty bytes; text
 * frames carry `input` and `resize`; malformed frames and binary frames are ignored. Output is paced by the
 * session (core/terminals: a slow socket lags in the ring and, past half a ring, pauses the program).
 */
import { z } from 'zod';
import type { Attachment, TerminalSession } from '../../core/terminals/terminal-manager.ts';
import type { ServerSocket } from '../../runtime/websocket.ts';
import { terminalDimension } from './terminal-input.ts';


/** Client → server text frames (docs/ori.md#terminal, GET /ws/terminal). */
const clientMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('input'), data: z.string() }),
  z.object({ type: z.literal('resize'), cols: terminalDimension, rows: terminalDimension }),
]);

export type TerminalClientMessage = z.output<typeof clientMessage>;

/** Parses one text frame; undefined for anything malformed (bad JSON, unknown type, wrong field types). */
export function parseTerminalMessage(text: string): TerminalClientMessage | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = clientMessage.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

/** A client that could not keep up is closed with 1013 (Try Again Later): it may reattach with `from`. */
export const TOO_SLOW_CLOSE_CODE = 1013;

export interface TerminalSocketOptions {
  /** Replay from this offset (named terminals); absent: the ring's start. */
  from?: number;
  /** Named terminals: first an `attached` text frame, and an `exit` text frame before the close. */
  announce: boolean;
}

/**
 * Serves `session` on `socket` until either ends: the program's exit closes the socket with 1000 (after all
 * its output); the socket's close detaches (an unnamed session is then killed by the manager). Throws the
 * session's `bad-request` for a `from` past the end, before anything is sent.
 */
export function serveTerminalSocket(socket: ServerSocket, session: TerminalSession, options: TerminalSocketOptions): Attachment {
  let open = true;
  const attachment = session.attach(
    {
      send: (bytes) => {
        if (open) socket.send(bytes);
      },
      get backlog() {
        return socket.bufferedAmount;
      },
      get inTransit() {
        return socket.inTransitBytes;
      },
      exit: (code) => {
        if (!open) return;
        if (options.announce) socket.send(JSON.stringify({ type: 'exit', code }));
        socket.close(1000);
      },
      drop: (reason) => {
        if (open) socket.close(TOO_SLOW_CLOSE_CODE, reason.slice(0, 120));
      },
    },
    { from: options.from },
  );
  if (options.announce) {
    const { from, end, truncated } = attachment;
    socket.send(JSON.stringify({ type: 'attached', from, end, truncated }));
  }
  socket.onDrain(() => attachment.drained());
  socket.onMessage((data, isBinary) => {
    if (isBinary || typeof data !== 'string' || !session.running) return;
    const message = parseTerminalMessage(data);
    if (message?.type === 'input') {
      try {
        session.write(message.data);
      } catch {
        // The program is not reading its input and a megabyte already waits: this keystroke is dropped, as a
        // full terminal line discipline drops them; the socket has no error frame to say so.
      }
    }
    else if (message?.type === 'resize') session.resize(message.cols, message.rows);
  });
  socket.onClose(() => {
    open = false;
    attachment.detach();
  });
  return attachment;
}
