/**
 * A terminal session's "process" that is not a pty: output the daemon produces itself (a clone's progress, read from
 * git's stderr by the GitRunner) shown in a named terminal, so a UI lists, attaches to and replays it like any other
 * session. Input and resizes are ignored; killing the session aborts `signal`, which the producer passes to its work
 * (the runner then kills git's process group); the session exits when the producer calls `end`.
 */
import type { PtyProcess } from '../../adapters/pty/pty-adapter.ts';

export interface OutputFeed {
  /** What the terminal manager adopts (StartTerminalOptions.process). */
  readonly process: PtyProcess;
  /** Aborted when the session is killed (DELETE /terminals/NAME, pty_kill, shutdown). */
  readonly signal: AbortSignal;
  /** Output bytes; a bare `\n` becomes `\r\n`, as a pty's line discipline would print it. */
  write(bytes: Uint8Array | string): void;
  /** The producer is done: the session exits with `code` (null: stopped, no exit status). Later calls do nothing. */
  end(code: number | null): void;
}

const encoder = new TextEncoder();
const LF = 0x0a;
const CR = 0x0d;

export function createOutputFeed(): OutputFeed {
  const aborter = new AbortController();
  const dataListeners: Array<(data: Uint8Array) => void> = [];
  const exitListeners: Array<(exit: { code: number | null; signal: number | null }) => void> = [];
  let ended = false;
  let lastByte = 0;
  let resolveEnded!: () => void;
  const endedPromise = new Promise<void>((resolve) => (resolveEnded = resolve));

  const toTerminal = (bytes: Uint8Array): Uint8Array => {
    const before = (i: number) => (i === 0 ? lastByte : bytes[i - 1]);
    let bare = 0;
    for (let i = 0; i < bytes.length; i++) if (bytes[i] === LF && before(i) !== CR) bare++;
    const out = bare === 0 ? bytes : new Uint8Array(bytes.length + bare);
    if (bare > 0) {
      let o = 0;
      for (let i = 0; i < bytes.length; i++) {
        if (bytes[i] === LF && before(i) !== CR) out[o++] = CR;
        out[o++] = bytes[i]!;
      }
    }
    if (bytes.length > 0) lastByte = bytes[bytes.length - 1]!;
    return out;
  };

  const process: PtyProcess = {
    pid: 0,
    write() {},
    resize() {},
    onData: (listener) => void dataListeners.push(listener),
    onExit: (listener) => void exitListeners.push(listener),
    // The producer is not ours to block: a lagging client reads from the ring like any session's.
    pause() {},
    resume() {},
    kill() {
      aborter.abort();
      return endedPromise;
    },
  };

  return {
    process,
    signal: aborter.signal,
    write(data) {
      if (ended) return;
      const bytes = toTerminal(typeof data === 'string' ? encoder.encode(data) : data);
      if (bytes.length > 0) for (const listener of dataListeners) listener(bytes);
    },
    end(code) {
      if (ended) return;
      ended = true;
      for (const listener of exitListeners) listener({ code, signal: null });
      resolveEnded();
    },
  };
}
