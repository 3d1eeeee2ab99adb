/**
 * Terminal sessions (docs/terminals.md#the-session-manager): the one manager behind ori's `/ws/terminal`, the named `/terminals`, the
 * protocol's `pty_*` commands, and later the installs, dev servers and test runs other engines start.
 * Edge-clean: the pty itself arrives as a PtyAdapter; this module only keeps sessions, their output and
 * their clients. The implementation is ./create-terminal-manager.ts.
 *
 * Output model: every byte a session's pty produced has an absolute offset (0 = its first byte). The last
 * `ringBytes` of it are kept in a ring, so a client attaching with `from = N` gets exactly the bytes after N
 * once and then live output; a client whose N fell out of the ring starts at the ring's start and is told so
 * (`truncated`).
 *
 * Flow control (see README "Terminals"): a client reads the ring at its own pace. When an attached client
 * falls half a ring behind, the pty is paused (the program blocks on a full pty, as on a slow terminal) until
 * every client has caught up to within a quarter ring, so an attached client never loses a byte and memory
 * stays bounded (ring + each socket's high-water mark). A named session's client that keeps the pty paused
 * longer than `stallMs` is dropped (its socket closes; it may reattach with `from`), so a stuck browser tab
 * cannot freeze a dev server. An unnamed session (`/ws/terminal`) has one client and pauses for as long as
 * it takes. A session with no client never pauses: the ring just keeps the latest output.
 */

import type { PtyProcess } from '../../adapters/pty/pty-adapter.ts';

/** docs/terminals.md#named-terminals-over-http: terminal names. */
export const TERMINAL_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export interface TerminalInfo {
  name: string;
  pid: number;
  /** The command it runs through the shell, or null for an interactive shell. */
  command: string | null;
  /** Absolute real path. */
  cwd: string;
  running: boolean;
  /** null while running, and for an exit by signal. */
  exitCode: number | null;
  /** The ring's byte offsets: the oldest byte still kept, and one past the newest. */
  start: number;
  end: number;
}

export interface StartTerminalOptions {
  /** Named sessions are listed and attachable by name; an unnamed one lives as long as its first client. */
  name?: string;
  /** Runs `<shell> -c command` in the pty; absent = an interactive login shell. */
  command?: string;
  /** The program for an interactive session (the protocol's `pty_spawn {shell}`); default $SHELL, bash, sh. */
  shell?: string;
  /** Absolute folder inside the root (the caller resolved and checked it). */
  cwd: string;
  cols?: number;
  rows?: number;
  env?: Record<string, string>;
  /** false: `env` is the whole environment (a job's children: core/jobs/job-host.ts); default: the daemon's, `env` on top. */
  inheritEnv?: boolean;
  /**
   * Adopt this process instead of spawning one in a pty (core/terminals/output-feed.ts: output the daemon produces,
   * such as a clone's progress). `command` is then only what the session shows it runs.
   */
  process?: PtyProcess;
}

/** Where a transport receives one client's share of a session. Implemented by the socket handlers. */
export interface TerminalClient {
  /** One chunk of output; `offset` is the absolute offset of its first byte. */
  send(bytes: Uint8Array, offset: number): void;
  /** Bytes handed to `send` not yet written to the network; the session stops sending above a high-water mark. */
  readonly backlog: number;
  /** Optional, finer: bytes of the message being written the network has not taken yet (ServerSocket.inTransitBytes). */
  readonly inTransit?: number;
  /** Once, after the last output byte: the session exited (`code` null when unknown / by signal). */
  exit(code: number | null): void;
  /** The session dropped this client (too slow, or the session was removed); no `exit` follows. */
  drop(reason: string): void;
}

export interface AttachOptions {
  /** Replay from this absolute offset (default: the ring's start). Past `end` is `bad-request`. */
  from?: number;
  /** Cut chunks only at UTF-8 character boundaries (the protocol's `pty-output` carries text). */
  utf8?: boolean;
}

export interface Attachment {
  /** Where the replay actually starts (≥ the requested `from` when that fell out of the ring). */
  readonly from: number;
  /** The session's end offset when the client attached. */
  readonly end: number;
  /** The requested `from` had fallen out of the ring: bytes between it and `from` are gone. */
  readonly truncated: boolean;
  /** The transport's socket drained: send more. */
  drained(): void;
  /** Stops delivery to this client; the session runs on (an unnamed session is killed with its client). */
  detach(): void;
}

export interface TerminalExit {
  code: number | null;
}

export interface TerminalSession {
  /** The name, or undefined for an unnamed session. */
  readonly name: string | undefined;
  readonly pid: number;
  info(): TerminalInfo;
  readonly running: boolean;
  /** Keystrokes or pasted text; `not-found`-free: an exited session refuses with `conflict`. */
  write(data: string | Uint8Array): void;
  resize(cols: number, rows: number): void;
  /** Kills the session's process groups; resolves once they are gone. The session stays listed (exited). */
  kill(): Promise<void>;
  /** Resolves when the program has exited (never rejects). */
  readonly exited: Promise<TerminalExit>;
  attach(client: TerminalClient, options?: AttachOptions): Attachment;
  /**
   * For code (installs, dev servers, tests): every output chunk from `from` (default: the ring's start) as it
   * comes, without flow control. Returns the unsubscribe.
   */
  follow(listener: (bytes: Uint8Array, offset: number) => void, options?: { from?: number }): () => void;
  /** The kept output (the ring) as text, lossy UTF-8. */
  text(): string;
  /**
   * Resolves with the output text (after `from`; at most the last ring's worth of characters) once `pattern`
   * appears in it; rejects on timeout, or when the program exits without printing it.
   */
  waitForOutput(pattern: string | RegExp, options?: { timeoutMs?: number; from?: number }): Promise<string>;
}

export interface TerminalManager {
  /**
   * Starts a session. `bad-request` for a malformed name, `conflict` if the name is taken, `too-many` (429)
   * past `maxSessions` running sessions, `internal` if the pty cannot start.
   */
  start(options: StartTerminalOptions): TerminalSession;
  get(name: string): TerminalSession | undefined;
  /** Named sessions, running or exited (until reaped), in start order. */
  list(): TerminalInfo[];
  /** Kills and forgets a named session; false when there is none. Attached clients get `exit`, then close. */
  remove(name: string): Promise<boolean>;
  /** Kills everything (the daemon's shutdown). */
  closeAll(): Promise<void>;
}

export interface TerminalManagerOptions {
  ringBytes: number;
  maxSessions: number;
  /** An exited session with no client is forgotten after this long. */
  reapMs: number;
  /** See the flow-control note above. */
  stallMs: number;
}
