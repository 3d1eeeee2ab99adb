/**
 * Raw deflate inflated by the runtime's DecompressionStream, fed only as fast as its output is read. Nothing is
 * piped into it: Node's inflater takes 16 384 chunks before it pushes back (a pipe reads the whole entry into its
 * queue at once, and cancelling the readable side does not reach the pipe's source), and workerd's inflates each
 * chunk the moment it is written and keeps the output until it is read, with no backpressure at all: a pipe, or
 * any writer that only waits for its writes, would hold a 1 GiB entry's whole output for a reader that stalled.
 *
 * So: where the inflater's output is a byte stream (workerd), one compressed chunk goes in, its output is read
 * out in views of VIEW bytes until a read comes back short (nothing of it is left), then the next chunk. Elsewhere
 * (Node) the inflater's own backpressure holds: one write at a time, each awaited. Either way at most about one
 * compressed chunk's output is held (≤ ~1000× the chunk for deflate; core/archive's ratio cap keeps an honest
 * entry near 200×). Stopping stops the input, the inflater and its output.
 */
import type { Source } from './source.ts';

/** A read of the inflater's output, in bytes: one that comes back shorter has emptied it. */
const VIEW = 64 * 1024;

type Writer = WritableStreamDefaultWriter<Uint8Array>;

export function pacedInflater(compressed: Source): Source {
  // The DOM typings want views over an ArrayBuffer; the archive's chunks are typed over any ArrayBufferLike.
  const inflater = new DecompressionStream('deflate-raw') as unknown as ReadableWritablePair<Uint8Array, Uint8Array>;
  const writer = inflater.writable.getWriter();
  const byob = byobReaderOf(inflater.readable);
  const output = byob ?? inflater.readable.getReader();
  const stop = (reason?: unknown) => {
    compressed.stop(reason);
    writer.abort(reason).catch(ignore);
    output.cancel(reason).catch(ignore);
  };
  return byob ? drainThenFeed(compressed, writer, byob, stop) : feedAhead(compressed, writer, output as ReadableStreamDefaultReader<Uint8Array>, stop);
}

/** Spec-paced inflaters (Node's): a write is answered when the inflater has room, so keep one in flight. */
function feedAhead(compressed: Source, writer: Writer, output: ReadableStreamDefaultReader<Uint8Array>, stop: Source['stop']): Source {
  void (async () => {
    try {
      while (await feedOne(compressed, writer));
    } catch {
      compressed.stop(); // the inflater failed (its output says why) or was stopped
    }
  })();
  return { read: () => output.read(), stop };
}

/** Unpaced inflaters with byte-stream output (workerd's): the next chunk goes in once the last one's output is out. */
function drainThenFeed(compressed: Source, writer: Writer, output: ReadableStreamBYOBReader, stop: Source['stop']): Source {
  let inputLeft = true;
  let drained = true;
  // One buffer read into over and over (a BYOB read hands it back, transferred); chunks handed on are copies of
  // exactly what was read, so a consumer that keeps them keeps no spare capacity.
  let buffer = new ArrayBuffer(VIEW);
  const feed = async () => {
    if (!inputLeft) return;
    try {
      inputLeft = await feedOne(compressed, writer);
    } catch {
      inputLeft = false; // the inflater failed (its output says why) or was stopped
    }
  };
  return {
    async read() {
      for (;;) {
        if (drained) {
          drained = false;
          await feed();
        }
        const pending = output.read(new Uint8Array(buffer));
        const next = inputLeft ? await unlessStarved(pending, feed) : await pending;
        if (next.done || next.value === undefined) return { done: true, value: undefined };
        buffer = next.value.buffer;
        drained = next.value.byteLength < VIEW;
        if (next.value.byteLength > 0) return { done: false, value: next.value.slice() };
      }
    },
    stop,
  };
}

/**
 * `pending`, a read of the output while input is left. Usually it is answered at once and the timer cleared. If it
 * is still waiting a macrotask later, the inflater has nothing (what it was given came out in full views to the
 * last byte, or gave no output at all) and will stay so until fed: feed it, and wait on.
 */
async function unlessStarved<T>(pending: Promise<T>, feed: () => Promise<void>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const starved = new Promise<typeof STARVED>((resolve) => (timer = setTimeout(() => resolve(STARVED), 0)));
  try {
    const first = await Promise.race([pending, starved]);
    if (first !== STARVED) return first;
  } finally {
    clearTimeout(timer);
  }
  await feed();
  return pending;
}
const STARVED = Symbol('starved');

/** One compressed chunk into the inflater, or the end of its input; false when there was no more. */
async function feedOne(compressed: Source, writer: Writer): Promise<boolean> {
  const next = await compressed.read();
  if (next.done) {
    await writer.close();
    return false;
  }
  await writer.write(next.value);
  return true;
}

/** The output's BYOB reader, where it is a byte stream; undefined (and the stream left unlocked) where not. */
function byobReaderOf(readable: ReadableStream<Uint8Array>): ReadableStreamBYOBReader | undefined {
  try {
    return readable.getReader({ mode: 'byob' });
  } catch {
    return undefined;
  }
}

function ignore(): void {}
