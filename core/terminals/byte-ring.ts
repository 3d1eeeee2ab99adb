/**
 * The last `capacity` bytes of a stream, addressed by absolute offset (0 = the stream's first byte). The
 * buffer starts small and doubles up to `capacity`, so a quiet terminal costs kilobytes, not the whole ring.
 * Byte `n` lives at `n % buffer.length`, so a read or write is at most two copies.
 */
const INITIAL_BYTES = 16 * 1024;

export class ByteRing {
  readonly capacity: number;
  #buffer: Uint8Array;
  #start = 0;
  #end = 0;

  constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`ring capacity must be a positive integer: ${capacity}`);
    this.capacity = capacity;
    this.#buffer = new Uint8Array(Math.min(capacity, INITIAL_BYTES));
  }

  /** The oldest offset still kept. */
  get start(): number {
    return this.#start;
  }

  /** One past the newest offset: the total number of bytes ever appended. */
  get end(): number {
    return this.#end;
  }

  /** Bytes the ring holds allocated now (it grows up to `capacity`): what a session's output costs. */
  get allocatedBytes(): number {
    return this.#buffer.length;
  }

  append(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    const kept = this.#end - this.#start;
    if (kept + bytes.length > this.#buffer.length && this.#buffer.length < this.capacity) {
      this.#grow(Math.min(this.capacity, Math.max(kept + bytes.length, this.#buffer.length * 2)));
    }
    const size = this.#buffer.length;
    const tail = bytes.length > size ? bytes.subarray(bytes.length - size) : bytes;
    const at = this.#end + (bytes.length - tail.length);
    this.#end += bytes.length;
    this.#start = Math.max(this.#start, this.#end - size);
    this.#copyIn(at, tail);
  }

  /** A copy of the kept bytes in `[from, to)`, clamped to what is kept. */
  read(from: number = this.#start, to: number = this.#end): Uint8Array {
    const start = Math.max(from, this.#start);
    const end = Math.min(to, this.#end);
    if (end <= start) return new Uint8Array(0);
    const out = new Uint8Array(end - start);
    this.#copyOut(start, out);
    return out;
  }

  #grow(size: number): void {
    const kept = this.read();
    this.#buffer = new Uint8Array(size);
    this.#copyIn(this.#start, kept);
  }

  #copyIn(offset: number, bytes: Uint8Array): void {
    const size = this.#buffer.length;
    const at = offset % size;
    const first = Math.min(bytes.length, size - at);
    this.#buffer.set(bytes.subarray(0, first), at);
    if (first < bytes.length) this.#buffer.set(bytes.subarray(first), 0);
  }

  #copyOut(offset: number, out: Uint8Array): void {
    const size = this.#buffer.length;
    const at = offset % size;
    const first = Math.min(out.length, size - at);
    out.set(this.#buffer.subarray(at, at + first), 0);
    if (first < out.length) out.set(this.#buffer.subarray(0, out.length - first), first);
  }
}
