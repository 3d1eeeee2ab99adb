import { closeSync, constants, openSync } from 'node:fs';
import { spawn as spawnPty, type IPty } from 'node-pty';
import { MAX_JOINED_BYTES, OutputCoalescer } from './output-coalescer.ts';
import { pinWorkingFolder } from '../fs/node-confinement.ts';
import { childEnv } from '../posix/child-env.ts';
import { terminateSession } from '../posix/session-signals.ts';
import { defaultShell } from '../posix/shell.ts';
import type { PtyAdapter, PtyProcess, PtySpawnOptions } from './pty-adapter.ts';

/** How long a killed terminal gets to act on SIGHUP before everything left in its session gets SIGKILL. */
const KILL_GRACE_MS = 1000;

/** Where a terminal's shell is chosen (the shared rule lives in adapters/posix/shell.ts). */
export { defaultShell };

/**
 * Pseudo-terminals over node-pty. Output is delivered as raw bytes (`encoding: null`), never decoded, so a
 * multi-byte character split across two reads reaches the client intact.
 *
 * The pty child is a session leader (forkpty calls setsid). An interactive shell with job control moves every
 * background job into a process group of its own, so killing only the shell's group would leave `sleep 1000 &`
 * running: `kill()` signals the shell's group and, on Linux, every process still in its session.
 */
export class NodePtyAdapter implements PtyAdapter {
  readonly #live = new Set<NodePtyProcess>();
  readonly #within: string | undefined;

  /** `within`: the folder a terminal's working folder must be in when it starts (adapters/fs/node-confinement.ts). */
  constructor(options: { within?: string } = {}) {
    this.#within = options.within;
  }

  spawn(options: PtySpawnOptions): PtyProcess {
    const shell = options.shell ?? defaultShell();
    const env = options.inheritEnv === false ? {} : childEnv();
    env.TERM = 'xterm-256color';
    Object.assign(env, options.env);

    // Held from the check to the child's chdir: a folder traded for a link out meanwhile is refused, not entered.
    const cwd = pinWorkingFolder(options.cwd, this.#within);
    let pty: ReturnType<typeof spawnPty>;
    try {
      pty = spawnPty(shell, options.args ?? [], {
        name: env.TERM,
        cwd: cwd.cwd,
        cols: options.cols,
        rows: options.rows,
        env,
        encoding: null,
      });
    } finally {
      cwd.release();
    }
    const child = new NodePtyProcess(pty, options.maxChunkBytes);
    this.#live.add(child);
    child.onExit(() => this.#live.delete(child));
    return child;
  }

  /** Kills every live terminal; resolves once all have exited (SIGKILL after the grace period guarantees it). */
  killAll(): Promise<void> {
    return Promise.all([...this.#live].map((child) => child.killAndWait())).then(() => undefined);
  }

  /** How many terminals are still running. */
  get liveCount(): number {
    return this.#live.size;
  }
}

/**
 * How often a paused terminal checks whether its program has exited. node-pty gives a reader 200 ms after
 * the exit before it destroys the pty, so a paused one must resume well within that to get the last output.
 */
const PAUSED_EXIT_POLL_MS = 25;
/** Past this many queued writes the input backlog counts as full without summing them (keystrokes are tiny). */
const MAX_COUNTED_WRITES = 4096;

/**
 * Opens the pty's slave side so the line never hangs up while the daemon has not read everything: on Linux,
 * what the program wrote last is discarded when its side closes before the master read it
 * (microsoft/node-pty#726). Released at the exit. Undefined where the slave cannot be opened.
 */
function holdSlave(pty: IPty): number | undefined {
  const name = (pty as unknown as { ptsName?: string }).ptsName;
  if (!name) return undefined;
  try {
    return openSync(name, constants.O_RDWR | constants.O_NOCTTY);
  } catch {
    return undefined;
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

class NodePtyProcess implements PtyProcess {
  readonly pid: number;
  readonly #pty: IPty;
  readonly #exited: Promise<void>;
  #hasExited = false;
  #killed: Promise<void> | undefined;
  #slave: number | undefined;
  #paused = false;
  #exitWatch: ReturnType<typeof setInterval> | undefined;
  readonly #dataListeners: ((data: Uint8Array) => void)[] = [];
  readonly #output: OutputCoalescer;

  constructor(pty: IPty, maxChunkBytes = MAX_JOINED_BYTES) {
    this.#output = new OutputCoalescer(
      (data) => {
        for (const listener of this.#dataListeners) listener(data);
      },
      { maxBytes: Math.min(MAX_JOINED_BYTES, maxChunkBytes) },
    );
    this.#pty = pty;
    this.pid = pty.pid;
    this.#slave = holdSlave(pty);
    // With `encoding: null` node-pty hands out Buffers although its typings say string.
    pty.onData((data) => this.#output.push(data as unknown as Uint8Array));
    this.#exited = new Promise((resolve) => {
      pty.onExit(() => {
        this.#hasExited = true;
        // Input the program never read has nowhere to go (and node-pty would keep writing it to a closed fd).
        const queue = this.#writeQueue();
        if (queue) queue.length = 0;
        this.#stopExitWatch();
        this.#releaseSlave();
        resolve();
      });
    });
  }

  get inputBacklog(): number {
    const queue = this.#writeQueue();
    if (!queue) return 0;
    // Counted only while short: a queue this long is full whatever its bytes.
    if (queue.length > MAX_COUNTED_WRITES) return Infinity;
    let bytes = 0;
    for (const task of queue) bytes += task.buffer.byteLength - task.offset;
    return bytes;
  }

  /**
   * node-pty's queue of writes waiting for room in the pty (1.1.0 keeps it on its write stream; node-pty is
   * pinned exactly). Undefined if a release moves it: the backlog then reads 0, as before this check.
   */
  #writeQueue(): { buffer: Uint8Array; offset: number }[] | undefined {
    const queue = (this.#pty as unknown as { _writeStream?: { _writeQueue?: unknown } })._writeStream?._writeQueue;
    return Array.isArray(queue) ? (queue as { buffer: Uint8Array; offset: number }[]) : undefined;
  }

  write(data: string | Uint8Array): void {
    if (this.#hasExited) return;
    this.#pty.write(typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  }

  resize(cols: number, rows: number): void {
    if (this.#hasExited) return;
    try {
      this.#pty.resize(cols, rows);
    } catch {
      // The pty closed between the check and the ioctl: nothing left to resize.
    }
  }

  pause(): void {
    if (this.#hasExited || this.#paused) return;
    this.#paused = true;
    this.#pty.pause();
    // Once the program is gone nothing is left to slow down: read what it wrote last before node-pty drops it.
    this.#exitWatch = setInterval(() => {
      if (processExists(this.pid)) return;
      this.#stopExitWatch();
      this.#pty.resume();
    }, PAUSED_EXIT_POLL_MS);
    this.#exitWatch.unref?.();
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#stopExitWatch();
    if (!this.#hasExited) this.#pty.resume();
  }

  #releaseSlave(): void {
    if (this.#slave !== undefined) closeSync(this.#slave);
    this.#slave = undefined;
  }

  #stopExitWatch(): void {
    clearInterval(this.#exitWatch);
    this.#exitWatch = undefined;
  }

  onData(listener: (data: Uint8Array) => void): void {
    this.#dataListeners.push(listener);
  }

  onExit(listener: (exit: { code: number | null; signal: number | null }) => void): void {
    this.#pty.onExit(({ exitCode, signal }) => {
      this.#output.flush(); // output held for joining comes before the exit
      const bySignal = signal !== undefined && signal !== 0;
      listener({ code: bySignal ? null : exitCode, signal: bySignal ? signal : null });
    });
  }

  kill(): Promise<void> {
    return this.killAndWait();
  }

  /**
   * SIGHUP to the session now, SIGKILL to whatever is left after the grace period. Idempotent; resolves when
   * the shell has exited and nothing else in its session runs (bounded even if a process cannot be killed).
   */
  killAndWait(): Promise<void> {
    // What a killed program printed last is not worth waiting for: without our hold on the line, the exit is
    // reported as soon as the session is gone instead of after node-pty's 200 ms wait for the reader.
    this.#releaseSlave();
    this.#killed ??= terminateSession(this.pid, {
      signal: 'SIGHUP',
      graceMs: KILL_GRACE_MS,
      hasExited: () => this.#hasExited,
      exited: this.#exited,
    });
    return this.#killed;
  }
}
