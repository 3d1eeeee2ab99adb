import { describe, expect, it } from 'vitest';
import { ByteRing } from '../../../core/terminals/byte-ring.ts';
import { seededRandom as random } from '../text/generators.ts';

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const bytes = (value: string) => new TextEncoder().encode(value);

/** The reference: every byte ever appended, of which the ring must keep the last `capacity`. */
class Reference {
  #all = new Uint8Array(1024);
  #end = 0;
  constructor(readonly capacity: number) {}
  append(chunk: Uint8Array) {
    if (this.#end + chunk.length > this.#all.length) {
      const grown = new Uint8Array(Math.max(this.#all.length * 2, this.#end + chunk.length));
      grown.set(this.#all.subarray(0, this.#end));
      this.#all = grown;
    }
    this.#all.set(chunk, this.#end);
    this.#end += chunk.length;
  }
  get end() {
    return this.#end;
  }
  get start() {
    return Math.max(0, this.#end - this.capacity);
  }
  read(from: number, to: number) {
    const start = Math.max(from, this.start);
    return this.#all.slice(start, Math.max(start, Math.min(to, this.end)));
  }
}

/** Byte equality at memcmp speed (deep equality walks a typed array element by element). */
function expectSameBytes(actual: Uint8Array, expected: Uint8Array, what: string) {
  if (Buffer.compare(actual, expected) !== 0) expect(actual, what).toEqual(expected); // fails, with a diff
}

describe('ByteRing', () => {
  it('refuses a capacity that is not a positive integer', () => {
    for (const capacity of [0, -1, 1.5, Number.NaN, Infinity]) {
      expect(() => new ByteRing(capacity)).toThrow(RangeError);
    }
  });

  it('starts empty at offset 0', () => {
    const ring = new ByteRing(8);
    expect([ring.start, ring.end, ring.capacity]).toEqual([0, 0, 8]);
    expect(ring.read()).toEqual(new Uint8Array(0));
    ring.append(new Uint8Array(0));
    expect([ring.start, ring.end]).toEqual([0, 0]);
  });

  it('keeps the last `capacity` bytes, addressed by absolute offset, across the wrap', () => {
    const ring = new ByteRing(4);
    ring.append(bytes('abc'));
    expect([ring.start, ring.end, text(ring.read())]).toEqual([0, 3, 'abc']);
    ring.append(bytes('def'));
    expect([ring.start, ring.end, text(ring.read())]).toEqual([2, 6, 'cdef']);
    expect(text(ring.read(3, 5))).toBe('de');
    expect(text(ring.read(5))).toBe('f');
    ring.append(bytes('g'));
    expect([ring.start, ring.end, text(ring.read())]).toEqual([3, 7, 'defg']);
  });

  it('clamps reads to what it keeps: before the start, past the end, empty and reversed windows', () => {
    const ring = new ByteRing(4);
    ring.append(bytes('abcdef')); // keeps cdef at 2..6
    expect(text(ring.read(0))).toBe('cdef');
    expect(text(ring.read(0, 3))).toBe('c');
    expect(text(ring.read(0, 2))).toBe('');
    expect(text(ring.read(4, 100))).toBe('ef');
    expect(text(ring.read(6))).toBe('');
    expect(text(ring.read(9))).toBe('');
    expect(text(ring.read(4, 4))).toBe('');
    expect(text(ring.read(5, 3))).toBe('');
  });

  it('keeps only the tail of one append larger than the whole ring', () => {
    const ring = new ByteRing(5);
    ring.append(bytes('ab'));
    ring.append(bytes('0123456789'));
    expect([ring.start, ring.end, text(ring.read())]).toEqual([7, 12, '56789']);
  });

  it('returns copies: later appends do not change what a read returned', () => {
    const ring = new ByteRing(4);
    ring.append(bytes('abcd'));
    const before = ring.read();
    ring.append(bytes('wxyz'));
    expect(text(before)).toBe('abcd');
  });

  it('allocates 16 KiB at first and doubles up to its capacity, never beyond, keeping every byte across growth', () => {
    const ring = new ByteRing(100_000);
    expect(ring.allocatedBytes).toBe(16 * 1024);
    const reference = new Reference(100_000);
    const sizes: number[] = [];
    for (let i = 0; i < 12; i++) {
      const chunk = new Uint8Array(9000);
      for (let j = 0; j < chunk.length; j++) chunk[j] = (i * 31 + j) & 0xff;
      ring.append(chunk);
      reference.append(chunk);
      sizes.push(ring.allocatedBytes);
      expectSameBytes(ring.read(), reference.read(0, Infinity), `after append ${i}`);
    }
    expect(sizes).toEqual([16384, 32768, 32768, 65536, 65536, 65536, 65536, 100000, 100000, 100000, 100000, 100000]);
    expect(new ByteRing(100).allocatedBytes).toBe(100); // a ring smaller than the first buffer is allocated whole
  });

  it('grows straight to what one large append needs', () => {
    const ring = new ByteRing(1 << 20);
    ring.append(new Uint8Array(200_000).fill(7));
    expect(ring.allocatedBytes).toBe(200_000);
    expect([ring.start, ring.end]).toEqual([0, 200_000]);
  });

  it('agrees with a plain reference under random appends and reads (several capacities, seeded)', () => {
    for (const [seed, capacity] of [
      [1, 1],
      [2, 7],
      [3, 16 * 1024 - 1],
      [4, 16 * 1024],
      [5, 16 * 1024 + 1],
      [6, 50_000],
    ] as const) {
      const next = random(seed);
      const ring = new ByteRing(capacity);
      const reference = new Reference(capacity);
      for (let step = 0; step < 200; step++) {
        // Mostly small chunks, some around the capacity, a few larger than it.
        const roll = next();
        const length = roll < 0.7 ? Math.floor(next() * 64) : roll < 0.95 ? Math.floor(next() * capacity * 1.2) : capacity + Math.floor(next() * 3 * capacity);
        // Each byte a hash of its absolute offset (and the seed): a byte served from the wrong place shows.
        const chunk = new Uint8Array(length);
        for (let i = 0; i < length; i++) chunk[i] = Math.imul(reference.end + i + seed * 7919, 2654435761) >>> 24;
        ring.append(chunk);
        reference.append(chunk);
        expect([ring.start, ring.end], `seed ${seed} step ${step}`).toEqual([reference.start, reference.end]);
        expect(ring.end - ring.start).toBeLessThanOrEqual(capacity);
        expect(ring.allocatedBytes).toBeLessThanOrEqual(capacity);
        for (let probe = 0; probe < 4; probe++) {
          const from = Math.floor(next() * (reference.end + 10)) - 5;
          const to = from + Math.floor(next() * (capacity + 10));
          expectSameBytes(ring.read(from, to), reference.read(from, to), `seed ${seed} step ${step} read(${from}, ${to})`);
        }
      }
      expectSameBytes(ring.read(), reference.read(0, Infinity), `seed ${seed} at the end`);
    }
  });
});
