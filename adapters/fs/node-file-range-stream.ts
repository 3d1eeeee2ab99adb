/**
 * A byte range of an open file as a web ReadableStream, which a Node host may instead send straight from the
 * file: `takeFile()` hands the open handle over, as long as nobody has read from the stream yet. Every other
 * consumer (in-process `app.fetch`, hashing, paging) reads it as a plain stream.
 */
import type { FileHandle } from 'node:fs/promises';

/** The open file and the span a taker must send: bytes [start, end) read `chunkBytes` at a time. */
export interface OpenFileRange {
  /** Owned by the taker from then on: it must close it (a Node read stream over it does at its end). */
  readonly handle: FileHandle;
  readonly start: number;
  /** Exclusive; Infinity means to the end of the file. */
  readonly end: number;
  readonly chunkBytes: number;
}

export class NodeFileRangeStream extends ReadableStream<Uint8Array> {
  readonly #take: () => OpenFileRange | undefined;

  constructor(range: OpenFileRange, toError: (error: unknown) => unknown) {
    const { handle, end, chunkBytes } = range;
    let position = range.start;
    let state: 'fresh' | 'reading' | 'closed' | 'taken' = 'fresh';
    // One read ahead of the consumer, started only once the consumer has asked for a first chunk (so an
    // unread stream has read nothing and can still be taken whole).
    let ahead: Promise<Uint8Array | undefined> | undefined;
    const readNext = (): Promise<Uint8Array | undefined> => {
      const want = Math.min(chunkBytes, end - position);
      if (want <= 0) return Promise.resolve(undefined);
      const buffer = Buffer.allocUnsafeSlow(want);
      const read = handle.read(buffer, 0, want, position).then(({ bytesRead }) => {
        position += bytesRead;
        return bytesRead === 0 ? undefined : new Uint8Array(buffer.buffer, buffer.byteOffset, bytesRead);
      });
      read.catch(() => {}); // awaited by the next pull; not an unhandled rejection meanwhile
      return read;
    };
    const close = async () => {
      if (state === 'closed' || state === 'taken') return;
      state = 'closed';
      await ahead?.catch(() => {});
      await handle.close().catch(() => {});
    };
    super(
      {
        async pull(controller) {
          if (state === 'taken' || state === 'closed') return controller.close();
          state = 'reading';
          try {
            const chunk = await (ahead ?? readNext());
            // The next read starts where this one ended (a short read moves less), while the consumer is busy;
            // none once the stream was cancelled during this one.
            ahead = chunk === undefined || state !== 'reading' ? undefined : readNext();
            if (chunk === undefined) {
              await close();
              controller.close();
              return;
            }
            controller.enqueue(chunk);
          } catch (error) {
            ahead = undefined;
            await close();
            controller.error(toError(error));
          }
        },
        cancel: close,
      },
      // Nothing is read before the first consumer asks; the source keeps its own one chunk ahead after that.
      { highWaterMark: 0 },
    );
    this.#take = () => {
      if (state !== 'fresh') return undefined;
      state = 'taken';
      return range;
    };
  }

  /** The open file for a host that sends it itself; undefined once the stream has been read or closed. */
  takeFile(): OpenFileRange | undefined {
    return this.locked ? undefined : this.#take();
  }
}
