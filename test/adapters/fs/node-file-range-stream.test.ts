import { readdirSync, readlinkSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NodeFileRangeStream } from '../../../adapters/fs/node-file-range-stream.ts';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

const content = new Uint8Array(100_003).map((_, i) => (i * 13) & 0xff);

function openDescriptors(file: string): number {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false;
    }
  }).length;
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) parts.push(next.value);
  return Buffer.concat(parts);
}

describe('NodeFileSystem.readStream: a file range a Node host can take over', () => {
  let workspace: TempWorkspace;
  let file: string;
  const fs = new NodeFileSystem();
  beforeEach(async () => {
    workspace = await tempWorkspace();
    file = `${workspace.root}/data.bin`;
    await writeFile(file, content);
  });
  afterEach(() => workspace.cleanup());

  it('an unread stream hands over its open file and range once; the stream is then empty and leaves the file open', async () => {
    const stream = await fs.readStream(file, { offset: 10, length: 1000 }, { chunkBytes: 4096 });
    expect(stream).toBeInstanceOf(NodeFileRangeStream);
    const taken = (stream as NodeFileRangeStream).takeFile()!;
    expect([taken.start, taken.end, taken.chunkBytes]).toEqual([10, 1010, 4096]);
    expect((stream as NodeFileRangeStream).takeFile()).toBeUndefined();
    expect((await readAll(stream)).length).toBe(0);
    const { bytesRead, buffer } = await taken.handle.read(Buffer.alloc(1000), 0, 1000, taken.start);
    expect(Buffer.from(buffer.subarray(0, bytesRead)).equals(Buffer.from(content.subarray(10, 1010)))).toBe(true);
    await taken.handle.close();
    expect(openDescriptors(file)).toBe(0);
  });

  it('a whole-file stream hands over an open end (Infinity)', async () => {
    const stream = (await fs.readStream(file)) as NodeFileRangeStream;
    const taken = stream.takeFile()!;
    expect([taken.start, taken.end]).toEqual([0, Infinity]);
    await taken.handle.close();
  });

  it('once read from, it is not taken: the consumer gets every byte, in chunks, and the file is closed at the end', async () => {
    const stream = (await fs.readStream(file, undefined, { chunkBytes: 7000 })) as NodeFileRangeStream;
    const reader = stream.getReader();
    const first = await reader.read();
    expect(first.value?.byteLength).toBe(7000);
    reader.releaseLock();
    expect(stream.takeFile()).toBeUndefined();
    const rest = await readAll(stream);
    expect(Buffer.concat([first.value!, rest]).equals(Buffer.from(content))).toBe(true);
    expect(openDescriptors(file)).toBe(0);
  });

  it('a cancelled stream closes its file and has nothing left to take', async () => {
    const stream = (await fs.readStream(file)) as NodeFileRangeStream;
    expect(openDescriptors(file)).toBe(1);
    await stream.cancel();
    expect(openDescriptors(file)).toBe(0);
    expect(stream.takeFile()).toBeUndefined();
  });
});
