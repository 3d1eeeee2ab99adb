import { read } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';

/**
 * How many buffers one response cycles through: one being written to the socket while the next is read,
 * so the disk and the socket are both kept busy.
 */
const BUFFERS = 2;

/**
 * Writes bytes [start, end) of the open file to `res` (its head already set) and ends it, reading
 * `chunkBytes` at a time into a few buffers reused for the whole response. Always closes `handle`.
 *
 * Why reused buffers: a fresh buffer per chunk is what fs.createReadStream does, but the daemon runs with
 * glibc's mmap threshold at 128 KiB (package.json `start`), so each 1 MiB chunk was its own mmap, page faults
 * and munmap: more CPU than the copy itself. A buffer is read into again only after the socket has taken its
 * previous bytes (the write callback), which is also the backpressure: at most one chunk waits in Node.
 *
 * A client that goes away stops the reads after the one in flight; a read error or a file that shrank under us
 * destroys the response, so the client sees a body shorter than its Content-Length rather than a hang.
 */
export async function sendFileRange(handle: FileHandle, start: number, end: number, chunkBytes: number, res: ServerResponse): Promise<void> {
  const closed = new Promise<'closed'>((resolve) => res.once('close', () => resolve('closed')));
  const size = Math.min(chunkBytes, end - start);
  const buffers = Array.from({ length: BUFFERS }, () => Buffer.allocUnsafeSlow(size));
  let position = start;
  let written: Promise<unknown> = Promise.resolve();
  try {
    for (let turn = 0; position < end; turn++) {
      const buffer = buffers[turn % BUFFERS]!;
      // This buffer's last bytes went out BUFFERS writes ago: every write before the latest has completed.
      // A read is always awaited, never abandoned: the handle must not close under it.
      const bytesRead = await readAt(handle.fd, buffer, Math.min(size, end - position), position);
      if (res.destroyed) return;
      if (bytesRead === 0) {
        if (end !== Infinity) res.destroy(new Error('the file ended before the range did'));
        break;
      }
      position += bytesRead;
      if ((await Promise.race([written, closed])) === 'closed') return;
      written = writeChunk(res, buffer.subarray(0, bytesRead));
      written.catch(() => {}); // awaited at the next turn; a failure meanwhile is not an unhandled rejection
    }
    if ((await Promise.race([written, closed])) === 'closed') return;
    res.end();
  } catch (error) {
    res.destroy(error instanceof Error ? error : new Error(String(error)));
  } finally {
    await handle.close().catch(() => {});
  }
}

function readAt(fd: number, buffer: Buffer, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => read(fd, buffer, 0, length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead))));
}

function writeChunk(res: ServerResponse, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => res.write(chunk, (error) => (error ? reject(error) : resolve())));
}
