/**
 * A CLI's output as lines (docs/noide-protocol.md#chat_stream): split on `\n`, a `\r` before it dropped, empty
 * lines kept as "", the last unterminated piece a line of its own at the end. Bytes are split before decoding
 * (a `\n` byte is never inside a UTF-8 sequence) and each line is decoded lossily, so bytes that are not UTF-8
 * become U+FFFD instead of ending the stream. A line longer than `maxLineBytes` goes out in pieces of at most
 * that, cut at a character boundary, so one endless line never grows the daemon's memory without bound.
 */
export const MAX_LINE_BYTES = 1024 * 1024;

export class LineSplitter {
  readonly #decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  readonly #maxLineBytes: number;
  /** The current unterminated line's bytes. */
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;

  constructor(
    private readonly emit: (line: string) => void,
    maxLineBytes = MAX_LINE_BYTES,
  ) {
    this.#maxLineBytes = maxLineBytes;
  }

  push(chunk: Uint8Array): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline < 0) break;
      this.#append(chunk.subarray(start, newline));
      this.#flushLine(true);
      start = newline + 1;
    }
    if (start < chunk.length) this.#append(chunk.subarray(start));
  }

  /** The output ended: an unterminated last piece is a line too. */
  end(): void {
    if (this.#pendingBytes > 0) this.#flushLine(false);
  }

  #append(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.#pending.push(bytes.slice()); // the pipe's buffer is reused after the callback
    this.#pendingBytes += bytes.length;
    // One byte of slack: a `\r` that a `\n` will follow must not end up as a piece of its own.
    if (this.#pendingBytes > this.#maxLineBytes + 1) {
      const rest = this.#emitPieces(this.#take(), this.#maxLineBytes + 1);
      this.#pending = rest.length > 0 ? [rest] : [];
      this.#pendingBytes = rest.length;
    }
  }

  #flushLine(terminated: boolean): void {
    let line = this.#take();
    this.#pending = [];
    this.#pendingBytes = 0;
    if (terminated && line.length > 0 && line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
    this.emit(this.#decoder.decode(this.#emitPieces(line, this.#maxLineBytes)));
  }

  /** Emits leading pieces of `bytes` while more than `keep` bytes are left; returns the rest. */
  #emitPieces(bytes: Uint8Array, keep: number): Uint8Array {
    let rest = bytes;
    while (rest.length > keep) {
      let cut = this.#maxLineBytes;
      // Back off over continuation bytes (10xxxxxx) to the start of a character, at most 3 of them.
      for (let back = 0; back < 3 && cut > 0 && (rest[cut]! & 0xc0) === 0x80; back++) cut--;
      if ((rest[cut]! & 0xc0) === 0x80) cut = this.#maxLineBytes; // not UTF-8 there anyway: cut where asked
      this.emit(this.#decoder.decode(rest.subarray(0, cut)));
      rest = rest.subarray(cut);
    }
    return rest;
  }

  #take(): Uint8Array {
    if (this.#pending.length === 1) return this.#pending[0]!;
    const all = new Uint8Array(this.#pendingBytes);
    let at = 0;
    for (const part of this.#pending) {
      all.set(part, at);
      at += part.length;
    }
    this.#pending = [all];
    return all;
  }
}
