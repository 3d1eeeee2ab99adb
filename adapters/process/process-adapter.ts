/**
 * One-shot commands (the protocol's `run_command`): type-only and edge-clean; the Node implementation
 * (node-process-adapter.ts) arrives through the context, and without it the command answers that it is not
 * available on this runtime.
 */
export interface RunCommandOptions {
  /** Run through `$SHELL -c` (else `sh -c`), never parsed by us. */
  command: string;
  /** Absolute folder to run in. */
  cwd: string;
  /** Past this the whole process group is killed and the result says `timedOut`. */
  timeoutMs: number;
  /** Combined output past this many bytes is cut there, the process group killed, and `truncated` set. */
  maxOutputBytes: number;
  /** Aborting kills the process group (the client went away). */
  signal?: AbortSignal;
}

export interface RunCommandResult {
  /** stdout and stderr interleaved as they arrived, at most `maxOutputBytes`. */
  output: Uint8Array;
  /** The exit status; null when the process died by a signal (including ours). */
  exitCode: number | null;
  timedOut: boolean;
  truncated: boolean;
}

export interface ProcessAdapter {
  /** Resolves once the process and everything in its group are gone; never rejects for a failing command. */
  run(options: RunCommandOptions): Promise<RunCommandResult>;
  /** Kills every command still running (the daemon's shutdown). */
  killAll(): Promise<void>;
}
