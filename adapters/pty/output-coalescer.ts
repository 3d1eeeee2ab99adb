import { concatBytes } from '../fs/concat-bytes.ts';

/**
 * Joins a pty's output reads while it streams. Linux hands a pty's output out at most 4 KiB per read (the tty
 * flip buffer), so a program printing fast produces ~270 reads per MiB — and, passed on as they come, as many
 * ring appends, WebSocket frames, send callbacks and client-side message events: the cost is per chunk, not per
 * byte. A read that follows another within `windowMs` is held and joined with the next ones, up to `maxBytes`;
 * the first read after a quiet spell goes out at once, so a keystroke's echo waits for nothing. No piece handed on
 * is larger than `maxBytes` (a terminal session counts on it: see PtySpawnOptions.maxChunkBytes).
 */
/** The largest join, unless the caller asks for less. */
export const MAX_JOINED_BYTES = 64 * 1024;

export class OutputCoalescer {
  readonly #emit: (data: Uint8Array) => void;
  readonly #windowMs: number;
  readonly #maxBytes: number;
  #held: Uint8Array[] = [];
  #heldBytes = 0;
  #window: ReturnType<typeof setTimeout> | undefined;

  constructor(emit: (data: Uint8Array) => void, { windowMs = 2, maxBytes = MAX_JOINED_BYTES } = {}) {
    this.#emit = emit;
    this.#windowMs = windowMs;
    this.#maxBytes = maxBytes;
  }

  push(chunk: Uint8Array): void {
    if (this.#window === undefined) {
      this.#emitCapped(chunk);
      this.#openWindow();
      return;
    }
    // Never more than maxBytes at once: what is held goes before a read that would push it past.
    if (this.#heldBytes + chunk.length > this.#maxBytes) this.#flushHeld();
    if (chunk.length >= this.#maxBytes) return this.#emitCapped(chunk);
    this.#held.push(chunk);
    this.#heldBytes += chunk.length;
    if (this.#heldBytes === this.#maxBytes) this.#flushHeld();
  }

  /** A read larger than maxBytes goes out in pieces of it. */
  #emitCapped(chunk: Uint8Array): void {
    for (let at = 0; at < chunk.length; at += this.#maxBytes) this.#emit(chunk.subarray(at, at + this.#maxBytes));
  }

  /** Sends whatever is held now and closes the window (the program exited: its output precedes the exit). */
  flush(): void {
    clearTimeout(this.#window);
    this.#window = undefined;
    this.#flushHeld();
  }

  #openWindow(): void {
    this.#window = setTimeout(() => {
      this.#window = undefined;
      if (this.#heldBytes === 0) return; // quiet: the next read goes out at once
      this.#flushHeld();
      this.#openWindow(); // still streaming
    }, this.#windowMs);
  }

  #flushHeld(): void {
    if (this.#heldBytes === 0) return;
    const joined = concatBytes(this.#held);
    this.#held = [];
    this.#heldBytes = 0;
    this.#emit(joined);
  }
}
