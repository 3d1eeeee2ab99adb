import { z } from 'zod';
import type { PtyAdapter, PtyProcess } from '../../adapters/pty/pty-adapter.ts';
import type { ServerSocket } from '../../runtime/websocket.ts';

/** The winsize fields are 16-bit: anything larger is not a terminal size. */
const MAX_DIMENSION = 0xffff;
const dimension = z.number().int().positive().max(MAX_DIMENSION);

/** Client → server text frames (seed 000, GET /ws/terminal). */
const clientMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('input'), data: z.string() }),
  z.object({ type: z.literal('resize'), cols: dimension, rows: dimension }),
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

/**
 * Output queued for a slow client above this pauses the pty; it resumes once the queue drains. The program
 * then blocks on a full pty buffer, as it would on a slow physical terminal, instead of the daemon buffering
 * `yes` into memory without bound.
 */
export const OUTPUT_HIGH_WATER_BYTES = 1024 * 1024;

export interface TerminalSessionOptions {
  cwd: string;
  cols: number;
  rows: number;
}

/**
 * One shell on one socket. Pty output goes out as binary frames of raw bytes; text frames carry input and
 * resizes; malformed frames and binary frames are ignored. The shell's exit closes the socket with 1000;
 * the socket's close kills the shell's whole process group. Output is flow-controlled (OUTPUT_HIGH_WATER_BYTES).
 */
export function runTerminalSession(socket: ServerSocket, ptys: PtyAdapter, options: TerminalSessionOptions): void {
  let shell: PtyProcess;
  try {
    shell = ptys.spawn({ cwd: options.cwd, cols: options.cols, rows: options.rows });
  } catch {
    socket.close(1011, 'could not start a shell');
    return;
  }
  let socketClosed = false;
  let paused = false;

  shell.onData((bytes) => {
    if (socketClosed) return;
    socket.send(bytes);
    if (!paused && socket.bufferedAmount > OUTPUT_HIGH_WATER_BYTES) {
      paused = true;
      shell.pause();
    }
  });
  socket.onDrain(() => {
    if (!paused || socketClosed) return;
    paused = false;
    shell.resume();
  });
  shell.onExit(() => {
    if (!socketClosed) socket.close(1000);
  });
  socket.onMessage((data, isBinary) => {
    if (isBinary || typeof data !== 'string') return;
    const message = parseTerminalMessage(data);
    if (message?.type === 'input') shell.write(message.data);
    else if (message?.type === 'resize') shell.resize(message.cols, message.rows);
  });
  socket.onClose(() => {
    socketClosed = true;
    shell.kill();
  });
}
