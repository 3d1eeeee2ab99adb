/**
 * One session: a pty, its output ring, the clients reading it, and the flow-control decisions
 * (terminal-manager.ts explains the policy).
 */
import type { PtyProcess } from '../../adapters/pty/pty-adapter.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import { ByteRing } from './byte-ring.ts';
import { Delivery } from './delivery.ts';
import type {
  AttachOptions,
  Attachment,
  TerminalClient,
  TerminalExit,
  TerminalInfo,
  TerminalSession,
} from './terminal-manager.ts';

export interface SessionSetup {
  name: string | undefined;
  command: string | null;
  cwd: string;
  ringBytes: number;
  /** How long a lagging client may keep the pty paused before it is dropped; Infinity: never. */
  stallMs: number;
  /** Called whenever a client detaches or the program exits (the manager reaps and forgets). */
  onIdle(session: Session): void;
}

/**
 * Input waiting for a program that does not read it is held in the daemon; past this, writes are refused
 * (a paste larger than this still goes in whole: the check is on what is already waiting).
 */
export const MAX_INPUT_BACKLOG_BYTES = 1024 * 1024;

export class Session implements TerminalSession {
  readonly name: string | undefined;
  readonly pid: number;
  readonly exited: Promise<TerminalExit>;
  readonly ring: ByteRing;
  exit: TerminalExit | undefined;
  /** When the session last became idle (exited with no client): the reaper's clock. */
  idleSince = 0;
  readonly #pty: PtyProcess;
  readonly #setup: SessionSetup;
  readonly #deliveries = new Set<Delivery>();
  readonly #followers = new Set<(bytes: Uint8Array, offset: number) => void>();
  #paused = false;
  #stallTimer: ReturnType<typeof setTimeout> | undefined;
  #killing: Promise<void> | undefined;

  constructor(pty: PtyProcess, setup: SessionSetup) {
    this.#pty = pty;
    this.#setup = setup;
    this.name = setup.name;
    this.pid = pty.pid;
    this.ring = new ByteRing(setup.ringBytes);
    let resolveExit!: (exit: TerminalExit) => void;
    this.exited = new Promise((resolve) => (resolveExit = resolve));
    pty.onData((bytes) => this.#onData(bytes));
    pty.onExit(({ code }) => {
      this.exit = { code };
      this.#clearStall();
      this.#paused = false;
      for (const delivery of this.#deliveries) delivery.pump();
      // A client that has not read to the exit holds the exited session (and its ring): it gets the same
      // stall limit as a running one, so a stuck client cannot keep exited sessions forever.
      this.#armStall();
      resolveExit(this.exit);
      this.idleSince = Date.now();
      setup.onIdle(this);
    });
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  get clientCount(): number {
    return this.#deliveries.size;
  }

  info(): TerminalInfo {
    return {
      name: this.name ?? '',
      pid: this.pid,
      command: this.#setup.command,
      cwd: this.#setup.cwd,
      running: this.running,
      exitCode: this.exit?.code ?? null,
      start: this.ring.start,
      end: this.ring.end,
    };
  }

  write(data: string | Uint8Array): void {
    if (!this.running) throw new WorkspaceError('conflict', `terminal ${this.#label()} has exited`, { name: this.name });
    const waiting = this.#pty.inputBacklog ?? 0;
    if (waiting > MAX_INPUT_BACKLOG_BYTES) {
      throw new WorkspaceError('too-many', `terminal ${this.#label()} is not reading its input (${Number.isFinite(waiting) ? `${waiting} bytes` : 'too many writes'} waiting)`, {
        name: this.name,
      });
    }
    this.#pty.write(data);
  }

  resize(cols: number, rows: number): void {
    if (this.running) this.#pty.resize(cols, rows);
  }

  kill(): Promise<void> {
    this.#killing ??= (async () => {
      // Also after the program's exit: what it left running in its session (a background job of an
      // interactive shell sits in a process group of its own, out of the hang-up's reach) dies with the session.
      await this.#pty.kill();
      await this.exited;
    })();
    return this.#killing;
  }

  attach(client: TerminalClient, options: AttachOptions = {}): Attachment {
    const { ring } = this;
    const requested = options.from ?? ring.start;
    if (!Number.isSafeInteger(requested) || requested < 0 || requested > ring.end) {
      throw new WorkspaceError('bad-request', `from must be an offset between 0 and ${ring.end}, not ${options.from}`, {
        from: options.from,
        end: ring.end,
      });
    }
    const truncated = requested < ring.start;
    const from = Math.max(requested, ring.start);
    // The delivery copies its replay now: the answer below promises every byte from `from`.
    const delivery = new Delivery(this, client, from, options.utf8 ?? false);
    this.#deliveries.add(delivery);
    const end = ring.end;
    this.#balance(); // a long replay pauses the program at once, not on the next turn
    // The replay starts on a later turn, after the transport has sent its answer to the attach (the
    // protocol's reply frame goes out once the command's promise settles, a few microtasks from now).
    setTimeout(() => {
      delivery.start();
      this.#balance();
    }, 0);
    return {
      from,
      end,
      truncated,
      drained: () => this.#pump(delivery),
      detach: () => this.#detach(delivery),
    };
  }

  follow(listener: (bytes: Uint8Array, offset: number) => void, options: { from?: number } = {}): () => void {
    const from = Math.max(options.from ?? this.ring.start, this.ring.start);
    const replay = this.ring.read(from);
    if (replay.length > 0) listener(replay, from);
    this.#followers.add(listener);
    return () => this.#followers.delete(listener);
  }

  text(): string {
    return new TextDecoder().decode(this.ring.read());
  }

  waitForOutput(pattern: string | RegExp, options: { timeoutMs?: number; from?: number } = {}): Promise<string> {
    /** Whether the text matches now that `added` characters came at its end. */
    const matches = (text: string, added: number) => {
      // A string can only newly appear across the new characters: search just those (and an overlap), so a
      // long wait over a chatty program does not rescan everything kept on every chunk.
      if (typeof pattern === 'string') return text.includes(pattern, Math.max(0, text.length - added - pattern.length + 1));
      pattern.lastIndex = 0; // a /g or /y pattern would otherwise resume where an earlier test left off
      return pattern.test(text);
    };
    // The text a waiter keeps is bounded like the ring: a pattern that never comes must not hold a chatty
    // program's whole output.
    const keepChars = this.ring.capacity;
    return new Promise((resolve, reject) => {
      const decoder = new TextDecoder();
      let text = '';
      let settled = false;
      let stop: (() => void) | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (error?: Error) => {
        if (settled) return;
        settled = true;
        stop?.();
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(text);
      };
      // `follow` replays the ring synchronously: the pattern may be found before it returns.
      stop = this.follow(
        (bytes) => {
          if (settled) return;
          const added = decoder.decode(bytes, { stream: true });
          text += added;
          if (text.length > keepChars) text = text.slice(text.length - keepChars);
          if (matches(text, added.length)) finish();
        },
        { from: options.from },
      );
      if (settled) {
        stop();
        return;
      }
      if (options.timeoutMs !== undefined) {
        timer = setTimeout(() => finish(new Error(`no ${String(pattern)} in ${this.#label()}'s output within ${options.timeoutMs} ms`)), options.timeoutMs);
      }
      void this.exited.then(() => finish(new Error(`${this.#label()} exited without printing ${String(pattern)}`)));
    });
  }

  /** Drops every client still attached (an exited session the manager must let go of). */
  dropClients(reason: string): void {
    for (const delivery of [...this.#deliveries]) {
      this.#detach(delivery);
      delivery.client.drop(reason);
    }
  }

  /** The manager removed the session: every client is told it ended. */
  dispose(): void {
    this.#clearStall();
    for (const delivery of this.#deliveries) delivery.pump();
    this.#followers.clear();
  }

  #onData(bytes: Uint8Array): void {
    const offset = this.ring.end;
    this.ring.append(bytes);
    for (const listener of this.#followers) {
      // Followers are other engines' code: one that throws is unsubscribed, and neither the clients nor the
      // pty's event loop pay for it.
      try {
        listener(bytes, offset);
      } catch (error) {
        this.#followers.delete(listener);
        console.error(`terminal ${this.#label()}: an output follower failed and was unsubscribed:`, error);
      }
    }
    for (const delivery of this.#deliveries) delivery.deliverLive(bytes, offset);
    this.#balance();
  }

  #pump(delivery: Delivery): void {
    delivery.pump();
    this.#balance();
  }

  #detach(delivery: Delivery): void {
    if (delivery.closed) return;
    delivery.closed = true;
    this.#deliveries.delete(delivery);
    this.#balance();
    if (this.#deliveries.size === 0) {
      this.idleSince = Date.now();
      this.#setup.onIdle(this);
    }
  }

  /** Pause while any client is half a ring behind; resume once all are within a quarter. */
  #balance(): void {
    if (!this.running) return;
    const lag = this.#maxLag();
    const capacity = this.ring.capacity;
    if (!this.#paused && lag > capacity / 2) {
      this.#paused = true;
      this.#pty.pause();
      this.#armStall();
    } else if (this.#paused && lag <= capacity / 4) {
      this.#paused = false;
      this.#clearStall();
      this.#pty.resume();
    }
  }

  /**
   * Checks every `stallMs` while the program is paused (or has exited with a client behind): a lagging
   * client that made no progress at all since the last check is dropped; one that moves, however slowly,
   * stays. Named sessions only (an unnamed one's `stallMs` is Infinity).
   */
  #armStall(): void {
    if (this.#stallTimer !== undefined || !Number.isFinite(this.#setup.stallMs)) return;
    for (const delivery of this.#deliveries) delivery.madeProgress(); // start the marks from now
    this.#stallTimer = setTimeout(() => this.#dropStalled(), this.#setup.stallMs);
  }

  #dropStalled(): void {
    this.#stallTimer = undefined;
    const behind = this.running ? this.ring.capacity / 4 : 0;
    let lagging = false;
    for (const delivery of [...this.#deliveries]) {
      if (delivery.lag <= behind) continue;
      if (delivery.madeProgress()) {
        lagging = true;
        continue;
      }
      this.#detach(delivery);
      delivery.client.drop(`terminal ${this.#label()}: client too slow (no progress for ${this.#setup.stallMs} ms)`);
    }
    this.#balance();
    if (lagging && (this.#paused || !this.running)) this.#armStall();
  }

  #maxLag(): number {
    let lag = 0;
    for (const delivery of this.#deliveries) lag = Math.max(lag, delivery.lag);
    return lag;
  }

  #clearStall(): void {
    if (this.#stallTimer !== undefined) clearTimeout(this.#stallTimer);
    this.#stallTimer = undefined;
  }

  #label(): string {
    return this.name ?? `pid ${this.pid}`;
  }
}
