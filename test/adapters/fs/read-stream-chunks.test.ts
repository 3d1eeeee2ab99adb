import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';

const KiB = 1024;
const MiB = 1024 * KiB;
const content = new Uint8Array(2 * MiB + 512 * KiB + 3).map((_, i) => (i * 7 + (i >> 12)) & 0xff);

interface Setup {
  fs: FileSystem;
  dir: string;
  /** The backend's own chunk size when no hint is given. */
  defaultChunk: number;
  cleanup(): Promise<void>;
}

const backends: Array<[string, () => Promise<Setup>]> = [
  [
    'node',
    async () => {
      const dir = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-chunks-')));
      await writeFile(join(dir, 'data.bin'), content);
      return { fs: new NodeFileSystem(), dir, defaultChunk: 256 * KiB, cleanup: () => rm(dir, { recursive: true, force: true }) };
    },
  ],
  [
    'memory',
    async () => {
      const fs = new MemoryFileSystem();
      await fs.mkdir('/d');
      await fs.write('/d/data.bin', content);
      return { fs, dir: '/d', defaultChunk: 64 * KiB, cleanup: async () => {} };
    },
  ],
];

async function chunksOf(stream: ReadableStream<Uint8Array>): Promise<{ sizes: number[]; bytes: Buffer }> {
  const sizes: number[] = [];
  const parts: Uint8Array[] = [];
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    sizes.push(next.value.byteLength);
    parts.push(next.value);
  }
  return { sizes, bytes: Buffer.concat(parts) };
}

describe.each(backends)('readStream chunk sizes, ReadStreamOptions.chunkBytes (%s)', (_name, create) => {
  let s: Setup;
  let file: string;
  beforeEach(async () => {
    s = await create();
    file = `${s.dir}/data.bin`;
  });
  afterEach(() => s.cleanup());

  it('reads the backend’s default chunk when not told otherwise', async () => {
    const { sizes, bytes } = await chunksOf(await s.fs.readStream(file));
    const full = Math.floor(content.length / s.defaultChunk);
    expect(sizes).toEqual([...Array(full).fill(s.defaultChunk), content.length - full * s.defaultChunk]);
    expect(bytes.equals(content)).toBe(true);
  });

  it('reads chunkBytes at a time when asked, within the range', async () => {
    const whole = await chunksOf(await s.fs.readStream(file, undefined, { chunkBytes: MiB }));
    expect(whole.sizes).toEqual([MiB, MiB, 512 * KiB + 3]);
    expect(whole.bytes.equals(content)).toBe(true);
    const window = await chunksOf(await s.fs.readStream(file, { offset: 100, length: MiB + 10 }, { chunkBytes: MiB }));
    expect(window.sizes).toEqual([MiB, 10]);
    expect(window.bytes.equals(content.subarray(100, 100 + MiB + 10))).toBe(true);
    const small = await chunksOf(await s.fs.readStream(file, { offset: 5, length: 10 }, { chunkBytes: 4 }));
    expect(small.sizes).toEqual([4, 4, 2]);
    expect(small.bytes.equals(content.subarray(5, 15))).toBe(true);
  });

  it('refuses a chunkBytes that is not a positive integer, before looking at the path', async () => {
    const missing = `${s.dir}/missing.bin`;
    for (const chunkBytes of [0, -1, 1.5, Number.NaN, Infinity]) {
      await expect(s.fs.readStream(missing, undefined, { chunkBytes }), String(chunkBytes)).rejects.toMatchObject({
        name: 'FsError',
        code: 'invalid',
        message: `invalid: bad chunkBytes for ${missing}`,
      });
    }
  });
});
