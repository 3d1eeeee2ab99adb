/**
 * Finds a short ASCII marker in a byte stream without decoding it: only the tail of each chunk is scanned,
 * plus the last `marker.length - 1` bytes of the previous chunk, so a marker split across two chunks is found.
 * Good for a marker that ends the stream (only a few bytes, e.g. a prompt, may follow it in the same chunk).
 */
export class MarkerScanner {
  readonly #marker: Buffer;
  readonly #tailBytes: number;
  #carry: Buffer = Buffer.alloc(0);

  /** `tailBytes`: how much of each chunk's end is scanned; the marker must end within that much of its chunk. */
  constructor(marker: string, tailBytes = 4096) {
    this.#marker = Buffer.from(marker, 'latin1');
    this.#tailBytes = Math.max(tailBytes, this.#marker.length);
  }

  /** Feeds one chunk; true once the marker has been seen in it (or straddling it and the previous one). */
  push(chunk: Uint8Array): boolean {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const keep = this.#marker.length - 1;
    let found: boolean;
    if (bytes.length <= this.#tailBytes) {
      found = Buffer.concat([this.#carry, bytes]).includes(this.#marker);
    } else {
      // Split marker: previous tail + this chunk's head; otherwise the marker ends near this chunk's end.
      found =
        Buffer.concat([this.#carry, bytes.subarray(0, keep)]).includes(this.#marker) ||
        bytes.subarray(bytes.length - this.#tailBytes).includes(this.#marker);
    }
    // The last `keep` bytes of everything seen so far (a chunk may be shorter than that).
    const joined = bytes.length >= keep ? bytes.subarray(bytes.length - keep) : Buffer.concat([this.#carry, bytes]);
    this.#carry = Buffer.from(joined.subarray(Math.max(0, joined.length - keep)));
    return found;
  }

  /**
   * `push` for text (the /ws protocol's `pty-output` data): only the head and the tail are encoded, joined by
   * a NUL the marker cannot contain, so a 64 KiB event costs two small slices, not a copy of it all.
   */
  pushText(text: string): boolean {
    const keep = this.#marker.length - 1;
    if (text.length <= this.#tailBytes + keep) return this.push(Buffer.from(text, 'utf8'));
    return this.push(Buffer.from(`${text.slice(0, keep)}\0${text.slice(text.length - this.#tailBytes)}`, 'utf8'));
  }
}
