import { concatBytes } from './concat-bytes.ts';
import { FsError } from './fs-error.ts';

/**
 * The chunks of a streamed write's source, failing `too-large` as soon as more than `maxBytes` have arrived
 * (before the chunk that crosses the cap is handed on), so no backend ever stores a byte past the cap.
 * Whenever iteration stops before the end (the cap, the consumer's own failure), the source is cancelled,
 * so a request body the write gave up on is not left half-read.
 */
export async function* cappedChunks(
  source: ReadableStream<Uint8Array>,
  maxBytes: number,
  path: string,
): AsyncGenerator<Uint8Array, void, undefined> {
  const reader = source.getReader();
  let finished = false;
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        return;
      }
      total += value.byteLength;
      if (total > maxBytes) throw new FsError('too-large', path, `too-large: more than ${maxBytes} bytes for ${path}`);
      if (value.byteLength > 0) yield value;
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/** Cancels a source that a write gave up on before reading it (a failed precondition, a bad argument). */
export async function discardSource(source: ReadableStream<Uint8Array> | Uint8Array): Promise<void> {
  if (source instanceof ReadableStream && !source.locked) await source.cancel().catch(() => {});
}

/** The whole of a capped source in one array (for backends that keep files in memory anyway). */
export async function collectCapped(
  source: ReadableStream<Uint8Array>,
  maxBytes: number,
  path: string,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of cappedChunks(source, maxBytes, path)) chunks.push(chunk);
  return concatBytes(chunks);
}
