/**
 * A Worker that runs WebZipAdapter inside workerd (bundled by ../web-zip-adapter-workerd.test.ts, no
 * nodejs_compat): `POST /` with an archive as the body answers what the adapter made of it, as JSON: the open's
 * failure, or the entry count, the entries, and for each entry its bytes (length, CRC-32, the first 64 as text)
 * or the message its stream failed with, and the size of the first chunk it produced. `POST /stall` with raw
 * deflate data reads one chunk of it inflated, waits, cancels, and says how much of the input had been read.
 */
import { WebZipAdapter } from '../../../../adapters/archive/web-zip-adapter.ts';
import { crc32 } from '../../../../adapters/archive/zip-format/crc32.ts';
import { inflatedStream } from '../../../../adapters/archive/zip-format/entry-stream.ts';
import type { Source } from '../../../../adapters/archive/zip-format/source.ts';

export interface EntryRead {
  ok: boolean;
  length?: number;
  crc?: number;
  head?: string;
  firstChunk?: number;
  error?: string;
}

export type ArchiveReport =
  | { opened: false; error: string }
  | { opened: true; entryCount: number; entries: unknown[]; reads: EntryRead[]; listError?: string };

export async function reportOn(bytes: Uint8Array): Promise<ArchiveReport> {
  let archive;
  try {
    archive = await new WebZipAdapter().open(bytes);
  } catch (error) {
    return { opened: false, error: (error as Error).message };
  }
  const entryCount = archive.entryCount;
  let entries;
  try {
    entries = await archive.readEntries();
  } catch (error) {
    return { opened: true, entryCount, entries: [], reads: [], listError: (error as Error).message };
  }
  const reads: EntryRead[] = [];
  for (const entry of entries) reads.push(await read(() => archive.open(entry)));
  archive.close();
  return { opened: true, entryCount, entries: [...entries], reads };
}

async function read(open: () => Promise<ReadableStream<Uint8Array>>): Promise<EntryRead> {
  let length = 0;
  let crc = 0;
  let head = new Uint8Array(0);
  let firstChunk: number | undefined;
  try {
    const reader = (await open()).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      firstChunk ??= value.byteLength;
      if (head.length < 64) head = new Uint8Array([...head, ...value.subarray(0, 64 - head.length)]);
      length += value.byteLength;
      crc = crc32(value, crc);
    }
  } catch (error) {
    return { ok: false, error: (error as Error).message, ...(firstChunk === undefined ? {} : { firstChunk }) };
  }
  return { ok: true, length, crc, head: new TextDecoder().decode(head), ...(firstChunk === undefined ? {} : { firstChunk }) };
}

export interface StallReport {
  chunks: number;
  readsWhileStalled: number;
  readsAfterCancel: number;
  stopped: boolean;
}

async function stall(compressed: Uint8Array): Promise<StallReport> {
  const chunk = 16 * 1024;
  let reads = 0;
  let stopped = false;
  let offset = 0;
  const source: Source = {
    async read() {
      reads++;
      if (stopped || offset >= compressed.length) return { done: true, value: undefined };
      return { done: false, value: compressed.slice(offset, (offset += chunk)) };
    },
    stop() {
      stopped = true;
    },
  };
  const pause = () => new Promise((resolve) => setTimeout(resolve, 50));
  const reader = inflatedStream(() => source, { uncompressedSize: Number.MAX_SAFE_INTEGER, crc32: 0 }).getReader();
  await reader.read();
  await pause();
  const readsWhileStalled = reads;
  await reader.cancel();
  await pause();
  return { chunks: Math.ceil(compressed.length / chunk), readsWhileStalled, readsAfterCancel: reads, stopped };
}

export default {
  async fetch(request: Request): Promise<Response> {
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (new URL(request.url).pathname === '/stall') return Response.json(await stall(bytes));
    return Response.json(await reportOn(bytes));
  },
};
