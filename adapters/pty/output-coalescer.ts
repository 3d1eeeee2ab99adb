import { concatBytes } from '../fs/concat-bytes.ts';

/**
 * Joins a pty's output reads while it streams. Linux hands a pty's output out at most 4 KiB per read (the tty
 * flip buffer), so a program printing fast produces ~270 reads per MiB — and, passed on as they come, as many
 * ring appends, WebSocket frames, send callbacks and client-side message events: the cost is per chunk, not per
 * byte. A read that follows another within `windowMs` is held and joined with the next ones, up to `maxBytes`;
 * the first read after a quiet spell goes out at once, so a keystroke's echo waits for nothing.
 */
export class OutputCoalescer {
  readonly #emit: (data: Uint8Array) => void;
  readonly #windowMs: number;
  readonly #maxBytes: number;
  #held: Uint8Array[] = [];
  #heldBytes = 0;
  #window: ReturnType<typeof setTimeout> | undefined;

  constructor(emit: (data: Uint8Array) => void, { windowMs = 2, maxBytes = 64 * 1024 } = {}) {
    this.#emit = emit;
    this.#windowMs = windowMs;
    this.#maxBytes = maxBytes;
  }

  push(chunk: Uint8Array): void {
    if (this.#window === undefined) {
      this.#emit(chunk);
      this.#openWindow();
      return;
    }
    this.#held.push(chunk);
    this.#heldBytes += chunk.length;
    if (this.#heldBytes >= this.#maxBytes) this.#flushHeld();
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
