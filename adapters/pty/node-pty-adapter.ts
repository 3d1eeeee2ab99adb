import { accessSync, constants, readdirSync, readFileSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawn as spawnPty, type IPty } from 'node-pty';
import type { PtyAdapter, PtyProcess, PtySpawnOptions } from './pty-adapter.ts';

/** How long a killed terminal gets to act on SIGHUP before everything left in its session gets SIGKILL. */
const KILL_GRACE_MS = 1000;
const KILL_POLL_MS = 25;

/** Variables that describe the terminal the daemon itself runs in; node-pty drops them for the same reason. */
const INHERITED_TERMINAL_VARIABLES = ['TMUX', 'TMUX_PANE', 'STY', 'WINDOW', 'WINDOWID', 'TERMCAP', 'COLUMNS', 'LINES'];

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

  spawn(options: PtySpawnOptions): PtyProcess {
    const shell = options.shell ?? defaultShell();
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
    for (const key of INHERITED_TERMINAL_VARIABLES) delete env[key];
    env.TERM = 'xterm-256color';
    Object.assign(env, options.env);

    const pty = spawnPty(shell, options.args ?? [], {
      name: env.TERM,
      cwd: options.cwd,
      cols: options.cols,
      rows: options.rows,
      env,
      encoding: null,
    });
    const child = new NodePtyProcess(pty);
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

class NodePtyProcess implements PtyProcess {
  readonly pid: number;
  readonly #pty: IPty;
  readonly #exited: Promise<void>;
  #hasExited = false;
  #killed: Promise<void> | undefined;

  constructor(pty: IPty) {
    this.#pty = pty;
    this.pid = pty.pid;
    this.#exited = new Promise((resolve) => {
      pty.onExit(() => {
        this.#hasExited = true;
        resolve();
      });
    });
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
    if (!this.#hasExited) this.#pty.pause();
  }

  resume(): void {
    if (!this.#hasExited) this.#pty.resume();
  }

  onData(listener: (data: Uint8Array) => void): void {
    // With `encoding: null` node-pty hands out Buffers although its typings say string.
    this.#pty.onData((data) => listener(data as unknown as Uint8Array));
  }

  onExit(listener: (exit: { code: number | null; signal: number | null }) => void): void {
    this.#pty.onExit(({ exitCode, signal }) => {
      const bySignal = signal !== undefined && signal !== 0;
      listener({ code: bySignal ? null : exitCode, signal: bySignal ? signal : null });
    });
  }

  kill(): void {
    void this.killAndWait();
  }

  /**
   * SIGHUP to the session now, SIGKILL to whatever is left after the grace period. Idempotent; resolves when
   * the shell has exited and nothing else in its session runs (bounded even if a process cannot be killed).
   */
  killAndWait(): Promise<void> {
    this.#killed ??= (async () => {
      signalSession(this.pid, 'SIGHUP');
      const deadline = Date.now() + KILL_GRACE_MS;
      while (Date.now() < deadline) {
        if (this.#hasExited && !sessionAlive(this.pid)) return;
        await sleep(KILL_POLL_MS);
      }
      signalSession(this.pid, 'SIGKILL');
      await Promise.race([this.#exited, sleep(KILL_GRACE_MS)]);
    })();
    return this.#killed;
  }
}

/**
 * Signals the process group led by `leader` and every process in its session (Linux: found through /proc).
 * Processes that started a session of their own (daemons) are out of reach by design. Gone processes are fine.
 */
function signalSession(leader: number, signal: NodeJS.Signals): void {
  const members = sessionMembers(leader) ?? [];
  const groups = new Set<number>([leader, ...members.map((member) => member.pgrp)]);
  for (const group of groups) trySignal(-group, signal);
  for (const member of members) trySignal(member.pid, signal);
}

/** Whether anything in the session still runs (zombies waiting for a reaper do not count). */
function sessionAlive(leader: number): boolean {
  const members = sessionMembers(leader);
  if (members === undefined) return groupExists(leader);
  return members.some((member) => member.state !== 'Z' && member.state !== 'X');
}

function groupExists(leader: number): boolean {
  try {
    process.kill(-leader, 0);
    return true;
  } catch {
    return false;
  }
}

function trySignal(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ESRCH' && code !== 'EPERM') throw error;
  }
}

interface ProcessIds {
  pid: number;
  pgrp: number;
  /** One-letter state from /proc: R, S, D, Z (zombie), ... */
  state: string;
}

/** Processes whose session id is `sid`, from /proc/<pid>/stat; undefined where /proc is absent (macOS). */
function sessionMembers(sid: number): ProcessIds[] | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const members: ProcessIds[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'latin1');
    } catch {
      continue; // exited while we looked
    }
    // "pid (comm) state ppid pgrp session ..." — comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pgrp = Number(fields[2]);
    const session = Number(fields[3]);
    if (session === sid) members.push({ pid: Number(name), pgrp, state: fields[0] ?? '' });
  }
  return members;
}

/** $SHELL when it is an executable file, else bash, else sh from PATH (seed 000's order). */
export function defaultShell(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.SHELL;
  if (fromEnv && isExecutableFile(fromEnv)) return fromEnv;
  return findOnPath('bash', env.PATH) ?? findOnPath('sh', env.PATH) ?? '/bin/sh';
}

function findOnPath(program: string, path = ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, program);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
