/**
 * Small deterministic generators for the property-style loops of the text tests (fast-check is not a
 * dependency): a seeded PRNG, text made of lines mixing 1- to 4-byte characters and carriage returns, and
 * byte soup that is UTF-8 most of the time.
 */
import type { ByteRange, FileSystem } from '../../../adapters/fs/file-system.ts';
import { withOverrides } from '../../support/with-overrides.ts';

/** mulberry32: a tiny seeded PRNG, so a failing round can be replayed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['a', 'b', 'z', ' ', '\r', 'é', '€', '😀', '\n', '\n'];

/** Text of up to `maxChars` characters; newlines are frequent so windows hold zero, one or many. */
export function randomText(random: () => number, maxChars: number): string {
  const count = Math.floor(random() * (maxChars + 1));
  let text = '';
  for (let i = 0; i < count; i++) text += PIECES[Math.floor(random() * PIECES.length)];
  return text;
}

/** Bytes: valid UTF-8 text, with (when `corrupt`) a stray byte that is not UTF-8 or a NUL somewhere. */
export function randomBytesFrom(random: () => number, maxChars: number, corrupt: boolean): Uint8Array {
  const bytes = new TextEncoder().encode(randomText(random, maxChars));
  if (!corrupt || bytes.length === 0) return bytes;
  const copy = new Uint8Array(bytes);
  copy[Math.floor(random() * copy.length)] = [0xff, 0x80, 0xc3, 0x00, 0xf0][Math.floor(random() * 5)]!;
  return copy;
}

/**
 * A FileSystem whose streams deliver `inner`'s bytes in chunks of the sizes `chunkSize()` picks (down to one
 * byte), and that counts what was pulled: for testing cuts at every chunk boundary and how far a read went.
 */
export interface CountingFileSystem extends FileSystem {
  readonly pulled: number;
  readonly streams: number;
  readonly cancelled: number;
  readonly wholeReads: number;
}

export function countingFileSystem(inner: FileSystem, chunkSize?: () => number): CountingFileSystem {
  const counts = { pulled: 0, streams: 0, cancelled: 0, wholeReads: 0 };
  const overrides: Partial<CountingFileSystem> = {
    async read(path: string, range?: ByteRange) {
      if (range?.length === undefined) counts.wholeReads++;
      return inner.read(path, range);
    },
    async readStream(path: string, range?: ByteRange) {
      counts.streams++;
      const reader = (await inner.readStream(path, range)).getReader();
      let pending: Uint8Array | undefined;
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (!pending || pending.length === 0) {
            const { done, value } = await reader.read();
            if (done) return controller.close();
            pending = value;
          }
          const size = chunkSize ? Math.max(1, chunkSize()) : pending.length;
          const chunk = pending.subarray(0, size);
          pending = pending.subarray(chunk.length);
          counts.pulled += chunk.length;
          controller.enqueue(chunk);
        },
        async cancel(reason) {
          counts.cancelled++;
          await reader.cancel(reason);
        },
      }, { highWaterMark: 0 });
    },
  };
  for (const key of Object.keys(counts) as (keyof typeof counts)[]) {
    Object.defineProperty(overrides, key, { get: () => counts[key], enumerable: true });
  }
  return withOverrides(inner as CountingFileSystem, overrides);
}
