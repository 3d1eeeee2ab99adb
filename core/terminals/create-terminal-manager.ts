/**
 * The terminal manager (terminal-manager.ts has the model): starts sessions on the pty adapter, keeps named
 * ones until they are removed or reaped, and kills an unnamed one when its client leaves.
 */
import { isFsError } from '../../adapters/fs/fs-error.ts';
import type { PtyAdapter } from '../../adapters/pty/pty-adapter.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import { Session } from './terminal-session.ts';
import {
  TERMINAL_NAME_PATTERN,
  type StartTerminalOptions,
  type TerminalInfo,
  type TerminalManager,
  type TerminalManagerOptions,
  type TerminalSession,
} from './terminal-manager.ts';

const DEFAULT_COLS = 80;
const DEFAULT_ROWS = 24;
/** docs/terminals.md#the-session-manager: what every session's programs see, beside the adapter's TERM=xterm-256color. */
const SESSION_ENV = { COLORTERM: 'truecolor' };

export function createTerminalManager(pty: PtyAdapter, options: TerminalManagerOptions): TerminalManager {
  const named = new Map<string, Session>();
  const unnamed = new Set<Session>();
  const reapTimers = new Map<Session, ReturnType<typeof setTimeout>>();

  const forget = (session: Session) => {
    clearTimeout(reapTimers.get(session));
    reapTimers.delete(session);
    session.dispose();
    if (session.name === undefined) unnamed.delete(session);
    else if (named.get(session.name) === session) named.delete(session.name);
  };

  /** An exited session goes, and with it whatever its program left running in its session. */
  const reap = (session: Session) => {
    forget(session);
    void session.kill();
  };

  const onIdle = (session: Session) => {
    if (session.clientCount > 0) {
      if (!session.running) reapExcessExited();
      return;
    }
    if (session.name === undefined) {
      // An unnamed session lives as long as its client (docs/ori.md#terminal: a closed socket kills the shell).
      void session.kill().then(() => forget(session));
      return;
    }
    if (session.running) return; // a detached named session runs on
    clearTimeout(reapTimers.get(session));
    const timer = setTimeout(() => {
      if (!session.running && session.clientCount === 0) reap(session);
    }, options.reapMs);
    (timer as { unref?: () => void }).unref?.();
    reapTimers.set(session, timer);
    reapExcessExited();
  };

  /**
   * At most `maxSessions` exited sessions are kept (each holds its ring): the oldest idle ones go first, then,
   * if clients that never read to the exit still hold too many, the oldest of those (their clients dropped).
   */
  const reapExcessExited = () => {
    const exited = [...named.values()].filter((session) => !session.running);
    exited.sort((a, b) => Number(a.clientCount > 0) - Number(b.clientCount > 0) || a.idleSince - b.idleSince);
    for (const session of exited.slice(0, Math.max(0, exited.length - options.maxSessions))) {
      session.dropClients(`terminal ${session.name}: exited, and more than ${options.maxSessions} exited terminals are kept`);
      reap(session);
    }
  };

  const runningCount = () => {
    let count = 0;
    for (const session of named.values()) if (session.running) count++;
    for (const session of unnamed) if (session.running) count++;
    return count;
  };

  return {
    start(start: StartTerminalOptions): TerminalSession {
      const { name } = start;
      if (name !== undefined) {
        if (!TERMINAL_NAME_PATTERN.test(name)) {
          throw new WorkspaceError('bad-request', `invalid terminal name: ${JSON.stringify(name)} (letters, digits, '.', '_', '-'; at most 128)`, { name });
        }
        if (named.has(name)) throw new WorkspaceError('conflict', `terminal ${name} already exists`, { name });
      }
      if (runningCount() >= options.maxSessions) {
        throw new WorkspaceError('too-many', `too many terminals running (the limit is ${options.maxSessions})`, {
          limit: options.maxSessions,
        });
      }
      // A command runs through the shell; a named interactive session is a login shell (docs/terminals.md#the-session-manager).
      const args = start.command !== undefined ? ['-c', start.command] : start.shell === undefined && name !== undefined ? ['-l'] : undefined;
      let process = start.process;
      try {
        process ??= pty.spawn({
          ...(start.shell !== undefined && { shell: start.shell }),
          ...(args && { args }),
          cwd: start.cwd,
          cols: start.cols ?? DEFAULT_COLS,
          rows: start.rows ?? DEFAULT_ROWS,
          env: { ...SESSION_ENV, ...start.env },
          ...(start.inheritEnv === false && { inheritEnv: false }),
          // A session pauses the pty half a ring behind its slowest client; what was read before that pause
          // still comes, so it must fit in the rest of the ring (a 64 KiB ring once lost bytes to a 64 KiB join).
          maxChunkBytes: Math.max(4096, Math.floor(options.ringBytes / 8)),
        });
      } catch (error) {
        // The working folder refused (traded for a link out of the root: adapters/fs/node-confinement.ts) is the
        // request's fault, answered as the FileSystem's refusal is (403); anything else is ours.
        if (isFsError(error)) throw error;
        throw new WorkspaceError('internal', `could not start the terminal: ${(error as Error).message}`);
      }
      const session = new Session(process, {
        name,
        command: start.command ?? null,
        cwd: start.cwd,
        ringBytes: options.ringBytes,
        stallMs: name === undefined ? Infinity : options.stallMs,
        onIdle,
      });
      if (name === undefined) unnamed.add(session);
      else named.set(name, session);
      return session;
    },

    get: (name) => named.get(name),

    list(): TerminalInfo[] {
      return [...named.values()].map((session) => session.info());
    },

    async remove(name) {
      const session = named.get(name);
      if (!session) return false;
      named.delete(name); // the name is free at once; the old session finishes dying below
      await session.kill();
      forget(session);
      return true;
    },

    async closeAll() {
      const all = [...named.values(), ...unnamed];
      await Promise.all(all.map((session) => session.kill()));
      for (const session of all) forget(session);
    },
  };
}
