/**
 * An entry's bytes as a Web stream, pulled chunk by chunk from the archive (never one whole buffer), counted
 * against the declared size and CRC-32-checked as they pass. Failures are yauzl-zip-adapter.ts's, word for
 * word: past the declared size the stream fails at once; short of it, or with a CRC that differs, at the end
 * (the size first); corrupt deflate data as `invalid compressed data (<the inflater's reason>)`.
 */
import { crc32 } from './crc32.ts';
import { pacedInflater } from './paced-inflater.ts';
import type { Source } from './source.ts';

export interface Declared {
  uncompressedSize: number;
  crc32: number;
}

/**
 * Chunk sizes. A stored chunk is copied out of the archive: a view would keep the whole archive's buffer
 * alive in whatever holds on to the chunk (a memory-backed file keeps the chunks it was written). Compressed
 * input is fed 16 KiB at a time because an inflater turns one input chunk into all of its output before
 * anyone can look (up to ~1000× for deflate): a lying header is caught within ~16 MiB, not ~64.
 */
const STORED_CHUNK = 64 * 1024;
const COMPRESSED_CHUNK = 16 * 1024;

/** A stored entry (method 0): its data is its content. */
export function storedStream(data: Uint8Array, declared: Declared): ReadableStream<Uint8Array> {
  return checkedStream(() => chunksOf(data, STORED_CHUNK, true), declared, messageOf);
}

/** A deflated entry (method 8), inflated by the runtime's DecompressionStream (workerd and Node 20 have it). */
export function deflatedStream(data: Uint8Array, declared: Declared): ReadableStream<Uint8Array> {
  return inflatedStream(() => chunksOf(data, COMPRESSED_CHUNK, false), declared);
}

/** `compressed()` (raw deflate) inflated and checked; exported for tests to watch the source. */
export function inflatedStream(compressed: () => Source, declared: Declared): ReadableStream<Uint8Array> {
  return checkedStream(() => pacedInflater(compressed()), declared, (error) => `invalid compressed data (${messageOf(error)})`);
}

/**
 * `open()`'s chunks, counted and checksummed. Pull-driven with no queue of its own (high-water mark 0): a
 * chunk is made when the consumer asks for one. The source is opened at the first read (an entry opened and
 * never read costs nothing), and stopped when the consumer cancels or the entry fails.
 */
function checkedStream(open: () => Source, declared: Declared, describeSourceFailure: (error: unknown) => string): ReadableStream<Uint8Array> {
  let source: Source | undefined;
  let seen = 0;
  let crc = 0;
  let settled = false;
  const fail = (controller: ReadableStreamDefaultController<Uint8Array>, message: string) => {
    settled = true;
    const error = new Error(message);
    controller.error(error);
    source?.stop(error);
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        source ??= open();
        for (;;) {
          let next: ReadableStreamReadResult<Uint8Array>;
          try {
            next = await source.read();
          } catch (error) {
            if (!settled) fail(controller, describeSourceFailure(error));
            return;
          }
          if (settled) return; // cancelled while the read was pending
          if (next.done) {
            if (seen !== declared.uncompressedSize) {
              fail(controller, `its data inflates to ${seen} bytes, not the declared ${declared.uncompressedSize}`);
            } else if (crc !== declared.crc32 >>> 0) fail(controller, 'CRC-32 mismatch: the data is corrupt');
            else {
              settled = true;
              controller.close();
            }
            return;
          }
          const chunk = next.value;
          // An empty chunk is read past: a pull that enqueues nothing is not called again.
          if (chunk.byteLength === 0) continue;
          seen += chunk.byteLength;
          if (seen > declared.uncompressedSize) {
            fail(controller, `its data inflates past the declared ${declared.uncompressedSize} bytes`);
            return;
          }
          crc = crc32(chunk, crc);
          controller.enqueue(chunk);
          return;
        }
      },
      cancel(reason) {
        settled = true;
        source?.stop(reason);
      },
    },
    { highWaterMark: 0 },
  );
}

/** `data` in chunks of `size` bytes, made as they are read: copies, or views into `data`. */
function chunksOf(data: Uint8Array, size: number, copy: boolean): Source {
  let rest: Uint8Array | undefined = data;
  let offset = 0;
  return {
    async read() {
      if (rest === undefined || offset >= rest.length) return { done: true, value: undefined };
      const chunk = copy ? rest.slice(offset, offset + size) : rest.subarray(offset, offset + size);
      offset += chunk.length;
      return { done: false, value: chunk };
    },
    stop() {
      rest = undefined;
    },
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
