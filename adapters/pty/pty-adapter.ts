/**
 * What handlers need from a pseudo-terminal. Type-only and edge-clean: the Node implementation
 * (node-pty-adapter.ts) arrives through the context; on runtimes without it the terminal handlers answer 501.
 */
export interface PtySpawnOptions {
  /** Program to run; the adapter picks $SHELL, then bash, then sh when omitted. */
  shell?: string;
  args?: string[];
  cwd: string;
  cols: number;
  rows: number;
  env?: Record<string, string>;
  /** false: `env` is the whole environment (the adapter adds only TERM); default: the daemon's, `env` on top. */
  inheritEnv?: boolean;
  /**
   * The most output `onData` hands over at once (the adapter may join reads up to it). Whatever was read before a
   * `pause` still arrives after it: a session keeps this well under its ring's headroom, so a paused slow client
   * never loses bytes to the ring.
   */
  maxChunkBytes?: number;
}

export interface PtyProcess {
  readonly pid: number;
  write(data: string | Uint8Array): void;
  resize(cols: number, rows: number): void;
  /**
   * Input handed to `write` that the program has not read yet (it sits in the daemon until the pty has room):
   * a program that never reads its terminal must not make the daemon hold every paste sent to it.
   */
  readonly inputBacklog?: number;
  /** Raw output bytes, as the pty produced them. */
  onData(listener: (data: Uint8Array) => void): void;
  /** Fires once; `code` is null when the exit status is unknown (killed by a signal). */
  onExit(listener: (exit: { code: number | null; signal: number | null }) => void): void;
  /** Stops reading output (the program blocks once the pty buffer fills): flow control for slow clients. */
  pause(): void;
  resume(): void;
  /**
   * Kills the whole process group (SIGHUP then SIGKILL), so the shell's children die too. May return a promise
   * that resolves once they are gone.
   */
  kill(): void | Promise<void>;
}

export interface PtyAdapter {
  spawn(options: PtySpawnOptions): PtyProcess;
  /** Every live process this adapter started (the server kills them all on shutdown). */
  killAll(): Promise<void>;
}
