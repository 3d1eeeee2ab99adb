/**
 * One client's read position in a session's output: it sends from the ring at the client's pace (never more
 * than CLIENT_HIGH_WATER_BYTES queued on its socket), so a replay and live output are one stream with no
 * gap and no duplicate, and a slow client simply lags behind in the ring (see terminal-manager.ts, flow
 * control).
 */
import { lastCharacterEnd } from '../text/utf8.ts';
import type { ByteRing } from './byte-ring.ts';
import type { TerminalClient } from './terminal-manager.ts';

/** Queued on a client's socket above this, the delivery waits for a drain. */
export const CLIENT_HIGH_WATER_BYTES = 256 * 1024;
/** The most one `send` carries: a replay of a whole ring goes out in frames of this size. */
const CHUNK_BYTES = 64 * 1024;

export interface DeliverySource {
  readonly ring: ByteRing;
  /** The exit code once the program has exited (null when unknown); undefined while it runs. */
  readonly exit: { code: number | null } | undefined;
}

export class Delivery {
  cursor: number;
  closed = false;
  /** Nothing is sent before `start` (the transport answers the attach first). */
  #started = false;
  #exitSent = false;
  /**
   * The replay, copied out of the ring at attach: until `start` the program may run on and push `from` out of
   * the ring, and the answer already promised the client every byte from there. Sent before the ring is read.
   */
  #replay: Uint8Array | undefined;
  #replayFrom: number;
  /** Progress marks for the stall check: where the cursor and the client's backlog were at the last look. */
  #seenCursor: number;
  #seenBacklog = Infinity;
  #seenInTransit = Infinity;

  constructor(
    readonly source: DeliverySource,
    readonly client: TerminalClient,
    from: number,
    readonly utf8: boolean,
  ) {
    this.cursor = from;
    this.#replayFrom = from;
    this.#seenCursor = from;
    const replay = source.ring.read(from);
    if (replay.length > 0) this.#replay = replay;
  }

  /**
   * Whether the client moved since the last look: its cursor advanced, or its socket sent some of what was
   * queued (a slow reader whose socket is busy with another reply is slow, not stuck).
   */
  madeProgress(): boolean {
    const backlog = this.client.backlog;
    const inTransit = this.client.inTransit ?? Infinity;
    const moved = this.cursor > this.#seenCursor || backlog < this.#seenBacklog || inTransit < this.#seenInTransit;
    this.#seenCursor = this.cursor;
    this.#seenBacklog = backlog;
    this.#seenInTransit = inTransit;
    return moved;
  }

  /** Bytes produced that this client has not been sent yet. */
  get lag(): number {
    return this.source.ring.end - this.cursor;
  }

  /**
   * Live output just appended at `offset`: when this client is caught up and its socket has room, the chunk
   * goes out as it came (no copy out of the ring); otherwise the ring serves it later.
   */
  deliverLive(bytes: Uint8Array, offset: number): void {
    if (this.closed || !this.#started) return;
    if (this.#replay === undefined && this.cursor === offset && this.client.backlog < CLIENT_HIGH_WATER_BYTES) {
      const cut = this.utf8 ? lastCharacterEnd(bytes, 0, bytes.length) : bytes.length;
      if (cut > 0) {
        this.client.send(cut === bytes.length ? bytes : bytes.subarray(0, cut), offset);
        this.cursor += cut;
      }
      if (cut === bytes.length) return;
    }
    this.pump();
  }

  /** The copied replay, in chunks as far as the client has room; then the ring takes over at its end. */
  #sendReplay(): void {
    const replay = this.#replay;
    if (replay === undefined) return;
    while (!this.closed && this.client.backlog < CLIENT_HIGH_WATER_BYTES) {
      const at = this.cursor - this.#replayFrom;
      let bytes = replay.subarray(at, Math.min(replay.length, at + CHUNK_BYTES));
      if (this.utf8 && at + bytes.length === replay.length) {
        // The replay may end inside a character whose rest is in the ring: the ring sends that one.
        bytes = bytes.subarray(0, lastCharacterEnd(bytes, 0, bytes.length));
      }
      if (bytes.length === 0) break;
      this.client.send(bytes, this.cursor);
      this.cursor += bytes.length;
      if (this.cursor - this.#replayFrom >= replay.length) break;
    }
    const rest = replay.length - (this.cursor - this.#replayFrom);
    if (rest === 0 || (this.utf8 && rest < 4 && lastCharacterEnd(replay, this.cursor - this.#replayFrom, replay.length) === this.cursor - this.#replayFrom)) {
      this.#replay = undefined;
    }
  }

  start(): void {
    this.#started = true;
    this.pump();
  }

  /** Sends what the ring holds past the cursor, as far as the client's socket has room; then the exit. */
  pump(): void {
    if (!this.#started) return;
    this.#sendReplay();
    const { ring } = this.source;
    while (!this.closed && this.#replay === undefined && this.cursor < ring.end && this.client.backlog < CLIENT_HIGH_WATER_BYTES) {
      // Fell out of the ring (the pty outran a pause): continue from what is kept; the offset shows the gap.
      if (this.cursor < ring.start) this.cursor = ring.start;
      let bytes = ring.read(this.cursor, Math.min(ring.end, this.cursor + CHUNK_BYTES));
      if (this.utf8 && !(this.source.exit && this.cursor + bytes.length === ring.end)) {
        const cut = lastCharacterEnd(bytes, 0, bytes.length);
        if (cut === 0) break; // only the start of a character so far: wait for the rest
        bytes = bytes.subarray(0, cut);
      }
      this.client.send(bytes, this.cursor);
      this.cursor += bytes.length;
    }
    const exit = this.source.exit;
    if (exit && !this.closed && !this.#exitSent && this.#replay === undefined && this.cursor >= ring.end) {
      this.#exitSent = true;
      this.client.exit(exit.code);
    }
  }
}
