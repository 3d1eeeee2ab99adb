/**
 * WebZipAdapter: the ZipAdapter contract it shares with YauzlZipAdapter (./zip-adapter-contract.ts), then what only
 * it has to prove: its own CRC-32 and CP437 table agree with zlib's and yauzl's, it imports nothing from Node, and
 * its streams are pulled, not pushed: nothing is read before the first read, a consumer that stops reading stops
 * the inflater, and one that cancels (or an entry that fails) stops the compressed source. In workerd itself:
 * ./web-zip-adapter-workerd.test.ts.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 as zlibCrc32, deflateRawSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { getFileNameLowLevel } from 'yauzl';
import { WebZipAdapter } from '../../../adapters/archive/web-zip-adapter.ts';
import { crc32 } from '../../../adapters/archive/zip-format/crc32.ts';
import { cp437 } from '../../../adapters/archive/zip-format/entry-name.ts';
import { inflatedStream } from '../../../adapters/archive/zip-format/entry-stream.ts';
import type { Source } from '../../../adapters/archive/zip-format/source.ts';
import { projectRoot } from '../../../runtime/worker-build.ts';
import { nodeImports } from '../../support/module-imports.ts';
import { buildZip, file } from '../../support/zip-writer.ts';
import { runZipAdapterContract } from './zip-adapter-contract.ts';

runZipAdapterContract('WebZipAdapter', () => new WebZipAdapter());

const noise = (size: number, seed = 1) => {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = 97 + ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 27);
  return bytes;
};

/** A compressed source in `chunk`-byte pieces that records when it is made, each read, and a stop. */
function recordedSource(data: Uint8Array, chunk: number) {
  const log = { made: false, reads: 0, chunks: Math.ceil(data.length / chunk), stopped: false };
  const make = (): Source => {
    log.made = true;
    let offset = 0;
    return {
      async read() {
        log.reads++;
        if (log.stopped || offset >= data.length) return { done: true, value: undefined };
        return { done: false, value: data.slice(offset, (offset += chunk)) };
      },
      stop() {
        log.stopped = true;
      },
    };
  };
  return { log, make };
}

describe('WebZipAdapter: its own parts agree with zlib and yauzl', () => {
  it('CRC-32 matches zlib’s for every length around the 8-byte step, and continues across chunks', () => {
    const data = noise(4096, 3);
    for (let length = 0; length <= 70; length++) expect(crc32(data.subarray(0, length))).toBe(zlibCrc32(data.subarray(0, length)));
    let running = 0;
    for (let offset = 0; offset < data.length; offset += 37) running = crc32(data.subarray(offset, offset + 37), running);
    expect(running).toBe(zlibCrc32(data));
    expect(crc32(new Uint8Array(1000).fill(0xff))).toBe(zlibCrc32(new Uint8Array(1000).fill(0xff)));
  });

  it('decodes all 256 CP437 bytes as yauzl does', () => {
    const every = Uint8Array.from({ length: 256 }, (_, byte) => byte);
    expect(cp437(every)).toBe(getFileNameLowLevel(0, Buffer.from(every), [], true));
  });

  it('imports no node:* module (nor a builtin by bare name): it is meant for workerd', async () => {
    const files = [
      join(projectRoot, 'adapters/archive/web-zip-adapter.ts'),
      ...(await readdir(join(projectRoot, 'adapters/archive/zip-format'))).map((name) => join(projectRoot, 'adapters/archive/zip-format', name)),
    ];
    expect(files.length).toBeGreaterThan(5);
    for (const path of files) expect([path, nodeImports(await readFile(path, 'utf8'))]).toEqual([path, []]);
  });
});

describe('WebZipAdapter: streams are pulled', () => {
  const data = noise(4 * 1024 * 1024);
  const compressed = new Uint8Array(deflateRawSync(data));
  const declared = { uncompressedSize: data.length, crc32: zlibCrc32(data) };

  it('reads nothing before the first read; a consumer that cancels part-way stops the compressed source', async () => {
    const { log, make } = recordedSource(compressed, 16 * 1024);
    const reader = inflatedStream(make, declared).getReader();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(log.made).toBe(false);
    const first = await reader.read();
    expect(Buffer.from(first.value!).equals(data.subarray(0, first.value!.byteLength))).toBe(true);
    await reader.cancel();
    await vi.waitFor(() => expect(log.stopped).toBe(true));
    expect(log.reads).toBeLessThanOrEqual(3); // of ~160
  });

  it('a consumer that stops reading stops the inflater: the source is read no further', async () => {
    const { log, make } = recordedSource(compressed, 16 * 1024);
    const reader = inflatedStream(make, declared).getReader();
    await reader.read();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const reads = log.reads;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(log.reads).toBe(reads);
    // One chunk in the inflater, at most one more waiting to go in: ~160 in all.
    expect(reads).toBeLessThanOrEqual(3);
    await reader.cancel();
  });

  it('an entry that inflates past its declared size stops its source at once', async () => {
    const zeros = new Uint8Array(deflateRawSync(new Uint8Array(64 * 1024 * 1024))); // ~64 KiB → 64 MiB
    const { log, make } = recordedSource(zeros, 16 * 1024);
    const stream = inflatedStream(make, { uncompressedSize: 100, crc32: 0 });
    await expect(new Response(stream).arrayBuffer()).rejects.toThrow('its data inflates past the declared 100 bytes');
    await vi.waitFor(() => expect(log.stopped).toBe(true));
    // The first 16 KiB chunk (16 MiB of zeros) is past the declared size already: the other three are never read.
    expect([log.reads, log.chunks]).toEqual([1, 4]);
  });

  it('a stored entry’s chunks are copies, not views that would keep the whole archive alive', async () => {
    const bytes = buildZip([file('s.bin', data, { method: 'store' })]);
    const archive = await new WebZipAdapter().open(bytes);
    const [entry] = await archive.readEntries();
    const reader = (await archive.open(entry!)).getReader();
    const { value } = await reader.read();
    expect(value!.buffer).not.toBe(bytes.buffer);
    expect(value!.buffer.byteLength).toBe(value!.byteLength);
    await reader.cancel();
  });
});
