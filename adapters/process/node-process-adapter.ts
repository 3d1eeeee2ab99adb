import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { pinWorkingFolder } from '../fs/node-confinement.ts';
import { childEnv } from '../posix/child-env.ts';
import { terminateSession } from '../posix/session-signals.ts';
import { commandShell } from '../posix/shell.ts';
import type { ProcessAdapter, RunCommandOptions, RunCommandResult } from './process-adapter.ts';

/** How long a stopped command gets to act on SIGTERM before everything left in its session gets SIGKILL. */
const KILL_GRACE_MS = 1000;

/**
 * stdout and stderr share ONE pipe, so the output keeps the order the program wrote it in: two pipes read by
 * the event loop can turn `echo a; echo b >&2; echo c` into "a c b". Node cannot give one pipe to both fds,
 * so a POSIX sh does the `2>&1` and execs the shell in its place: same pid, and the shell sees exactly
 * `-c COMMAND` (`$0` is the shell's path, as when spawned directly), so its messages read the same.
 */
const JOIN_STDERR_THEN_EXEC = 'exec "$0" -c "$1" 2>&1';

export interface NodeProcessAdapterOptions {
  /** SIGTERM → SIGKILL grace (default 1 s). */
  killGraceMs?: number;
  /** The environment commands inherit (default: the daemon's, read at each run). */
  env?: NodeJS.ProcessEnv;
  /** The folder a command's working folder must be in when it starts (adapters/fs/node-confinement.ts). */
  within?: string;
}

/**
 * One-shot commands over node:child_process, each in a session of its own (`detached: true` calls setsid),
 * with stdin on /dev/null so a command that reads input sees end-of-file instead of waiting forever.
 *
 * A command ends when its shell exits: whatever it left running in its session (`server &`) is killed then,
 * so the reply never waits for a background child that keeps the output pipe open, and nothing the daemon
 * started outlives the reply. Work meant to outlive its command belongs in a named terminal.
 */
export class NodeProcessAdapter implements ProcessAdapter {
  readonly #live = new Set<RunningCommand>();
  readonly #graceMs: number;
  readonly #env: NodeJS.ProcessEnv | undefined;
  readonly #within: string | undefined;

  constructor(options: NodeProcessAdapterOptions = {}) {
    this.#graceMs = options.killGraceMs ?? KILL_GRACE_MS;
    this.#env = options.env;
    this.#within = options.within;
  }

  async run(options: RunCommandOptions): Promise<RunCommandResult> {
    if (options.signal?.aborted) return { output: new Uint8Array(0), exitCode: null, timedOut: false, truncated: false };
    const env = childEnv(this.#env ?? process.env);
    // Held from the check to the child's chdir: a folder traded for a link out meanwhile is refused, not entered.
    let cwd: ReturnType<typeof pinWorkingFolder>;
    try {
      cwd = pinWorkingFolder(options.cwd, this.#within);
    } catch (error) {
      throw new Error(`cannot run a command in ${options.cwd}: ${error instanceof Error ? error.message : String(error)}`);
    }
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn('/bin/sh', ['-c', JOIN_STDERR_THEN_EXEC, commandShell(env), options.command], {
        cwd: cwd.cwd,
        env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } finally {
      cwd.release();
    }
    if (child.pid === undefined) {
      const [error] = (await once(child, 'error')) as [Error];
      throw new Error(`cannot run a command in ${options.cwd}: ${error.message}`);
    }
    const command = new RunningCommand(child, child.pid, options, this.#graceMs);
    this.#live.add(command);
    try {
      return await command.result;
    } finally {
      this.#live.delete(command);
    }
  }

  /** Stops every running command; resolves once each one's session is empty. */
  async killAll(): Promise<void> {
    await Promise.all(
      [...this.#live].map((command) => {
        command.stop('aborted');
        return command.result.catch(() => undefined);
      }),
    );
  }

  /** How many commands are running. */
  get liveCount(): number {
    return this.#live.size;
  }
}

/** Why a command stopped: its shell exited, or we stopped it. The first reason wins. */
type Ending = 'exited' | 'timed-out' | 'truncated' | 'aborted';

class RunningCommand {
  readonly result: Promise<RunCommandResult>;
  readonly #pid: number;
  readonly #maxBytes: number;
  readonly #graceMs: number;
  readonly #exited: Promise<void>;
  /**
   * The output so far, copied into one buffer that doubles up to the cap: a program writing a byte at a time
   * produces reads of a few bytes, and a list of them costs many times the bytes in per-chunk overhead.
   */
  #buffer = new Uint8Array(0);
  #bytes = 0;
  #truncated = false;
  #hasExited = false;
  #exitCode: number | null = null;
  #ending: Ending | undefined;
  #stopped: Promise<void> = Promise.resolve();

  constructor(child: ChildProcess, pid: number, options: RunCommandOptions, graceMs: number) {
    this.#pid = pid;
    this.#maxBytes = options.maxOutputBytes;
    this.#graceMs = graceMs;
    // Signalling a process that just exited can fail; the outcome is known from 'exit' anyway.
    child.on('error', () => {});
    this.#exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.#exitCode = signal === null ? code : null;
        this.#hasExited = true;
        resolve();
      });
    });
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const stdout = child.stdout!;
    const stderr = child.stderr!;
    const collect = (chunk: Buffer) => this.#collect(chunk);
    stdout.on('data', collect);
    // Only the wrapper's own complaints (before its exec) can arrive here: fd 2 is the output pipe after it.
    stderr.on('data', collect);

    const timer = setTimeout(() => this.stop('timed-out'), options.timeoutMs);
    const onAbort = () => this.stop('aborted');
    options.signal?.addEventListener('abort', onAbort, { once: true });

    this.result = this.#finish(closed, () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      stdout.destroy();
      stderr.destroy();
    });
  }

  async #finish(closed: Promise<void>, release: () => void): Promise<RunCommandResult> {
    try {
      await this.#exited;
      this.stop('exited');
      await this.#stopped;
      // Output still in the pipe arrives before 'close'. A process that left the session (setsid) may hold
      // the pipe open for ever: it gets one grace period, then the pipe is closed on it.
      await raceTimeout(closed, this.#graceMs);
    } finally {
      release();
    }
    return {
      output: this.#buffer.subarray(0, this.#bytes),
      exitCode: this.#exitCode,
      timedOut: this.#ending === 'timed-out',
      truncated: this.#truncated,
    };
  }

  #append(bytes: Uint8Array): void {
    const needed = this.#bytes + bytes.byteLength;
    if (needed > this.#buffer.byteLength) {
      const grown = new Uint8Array(Math.min(this.#maxBytes, Math.max(needed, this.#buffer.byteLength * 2, 64 * 1024)));
      grown.set(this.#buffer.subarray(0, this.#bytes));
      this.#buffer = grown;
    }
    this.#buffer.set(bytes, this.#bytes);
    this.#bytes = needed;
  }

  /** Kills what runs in the command's session (SIGTERM, then SIGKILL after the grace), once, for the first reason. */
  stop(why: Ending): void {
    if (this.#ending !== undefined) return;
    this.#ending = why;
    this.#stopped = terminateSession(this.#pid, {
      signal: 'SIGTERM',
      graceMs: this.#graceMs,
      hasExited: () => this.#hasExited,
      exited: this.#exited,
    });
  }

  #collect(chunk: Buffer): void {
    if (this.#truncated) return;
    const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const room = this.#maxBytes - this.#bytes;
    if (bytes.byteLength <= room) {
      this.#append(bytes);
      return;
    }
    if (room > 0) this.#append(bytes.subarray(0, room));
    this.#truncated = true;
    this.stop('truncated');
  }
}

/** Waits for `promise`, but at most `ms`; the timer does not outlive the wait. */
async function raceTimeout(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
