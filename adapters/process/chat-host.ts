/**
 * What agent chat (core/chat) needs of the machine: starting an agent CLI in a process group of its own with its
 * output on pipes that can be paused, the daemon's environment and home, executable lookup, and owner-only
 * temp files for attachments. Type-only and edge-clean; the Node implementation is ./node-chat-host.ts, and
 * without one (Workers) the chat commands answer that chat needs a machine.
 */

export interface ChatSpawnOptions {
  /** The executable, an absolute path. */
  file: string;
  args: readonly string[];
  /** Absolute folder to run in. */
  cwd: string;
  /** The whole environment of the process (nothing is inherited beyond it). */
  env: Readonly<Record<string, string>>;
  /** stderr on a pipe (a chat run) or discarded (an agent server). stdin is always /dev/null. */
  stderr: 'pipe' | 'ignore';
}

/** One output pipe of a process: raw bytes, pausable (a paused pipe fills and blocks the writer). */
export interface ChatPipe {
  onData(listener: (chunk: Uint8Array) => void): void;
  /** The pipe reached end of file (or failed): no more data. */
  onEnd(listener: () => void): void;
  pause(): void;
  resume(): void;
  /** Stops reading for good (a reader that is no longer wanted). */
  destroy(): void;
}

export interface ChatProcess {
  readonly pid: number;
  readonly stdout: ChatPipe;
  /** Absent when spawned with `stderr: 'ignore'`. */
  readonly stderr: ChatPipe | undefined;
  /** Settles once the process has exited: `code` null when a signal ended it. */
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  /** Sends `signal` to the process's whole group (and, on Linux, its session). Gone processes are fine. */
  signal(signal: 'SIGTERM' | 'SIGKILL'): void;
  /** Whether anything of its group or session still runs (the leader included). */
  alive(): boolean;
  /** SIGTERM to its group and session, SIGKILL to what is left after `graceMs`; resolves once nothing of it runs. */
  stop(graceMs: number): Promise<void>;
}

/** An owner-only folder for one run's attachments; `remove` deletes it with everything in it. */
export interface ChatTempFolder {
  readonly path: string;
  /** Writes `bytes` as `name` (a plain file name) in the folder, owner-only; resolves to the file's absolute path. */
  write(name: string, bytes: Uint8Array): Promise<string>;
  remove(): Promise<void>;
}

export interface ChatHost {
  /** Starts the process; rejects with the system's reason (`spawn … ENOENT`, `EACCES`) when it cannot. */
  spawn(options: ChatSpawnOptions): Promise<ChatProcess>;
  /** The daemon's environment for a child (what it inherits before chat's own variables). */
  baseEnv(): Record<string, string>;
  /** The user's home folder, if any (the agents' own install folders are under it). */
  readonly home: string | undefined;
  /** Sub-folder names of `folder` (sorted), or [] when it cannot be read. */
  listFolders(folder: string): Promise<string[]>;
  /** Whether `path` is a regular file this process may execute. */
  isExecutableFile(path: string): Promise<boolean>;
  /** A fresh owner-only temp folder. */
  tempFolder(): Promise<ChatTempFolder>;
}
