import { open, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { readLinePage, type LinePage } from '../../../core/text/line-page.ts';
import { withOverrides } from '../../support/with-overrides.ts';
import { countingFileSystem, randomBytesFrom, seededRandom } from './generators.ts';

const encoder = new TextEncoder();
const MiB = 1024 * 1024;

const backends: [string, () => Promise<{ fs: FileSystem; dir: string; cleanup(): Promise<void> }>][] = [
  ['memory', async () => ({ fs: new MemoryFileSystem(), dir: '/', cleanup: async () => {} })],
  [
    'node',
    async () => {
      const dir = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-page-')));
      return { fs: new NodeFileSystem(), dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
    },
  ],
];

type Outcome = LinePage | { error: string; details?: unknown };

/** workspace-files' rules said plainly, over the whole file in memory: what a page must be. */
function referencePage(bytes: Uint8Array, offset: number, limit: number, maxBytes: number): Outcome {
  const starts: number[] = [];
  const ends: number[] = []; // each line's end, before its `\n`
  for (let at = 0; at < bytes.length; ) {
    const newline = bytes.indexOf(0x0a, at);
    starts.push(at);
    ends.push(newline === -1 ? bytes.length : newline);
    at = newline === -1 ? bytes.length : newline + 1;
  }
  const first = offset - 1;
  const last = Math.min(starts.length, first + limit); // exclusive
  const pageStart = first < starts.length ? starts[first]! : bytes.length;
  const pageEnd = first < last ? ends[last - 1]! : bytes.length;
  const text = first < last ? bytes.subarray(pageStart, pageEnd) : new Uint8Array(0);
  if (text.length > maxBytes) return { error: 'too-large', details: { limit: maxBytes } };
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, pageEnd));
  } catch {
    return { error: 'not-text' };
  }
  if (text.includes(0)) return { error: 'not-text' };
  return {
    text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(text),
    lines: Math.max(0, last - first),
    eof: first + limit >= starts.length,
  };
}

async function outcome(page: Promise<LinePage>): Promise<Outcome> {
  try {
    return await page;
  } catch (error) {
    const { code, details } = error as { code: string; details: Record<string, unknown> };
    return code === 'too-large' ? { error: code, details } : { error: code };
  }
}

describe.each(backends)('readLinePage (%s)', (name, makeBackend) => {
  let fs: FileSystem;
  let dir: string;
  let cleanup: () => Promise<void>;
  let serial = 0;
  beforeAll(async () => ({ fs, dir, cleanup } = await makeBackend()));
  afterAll(() => cleanup());

  async function fileOf(content: string | Uint8Array): Promise<string> {
    const path = join(dir, `p${serial++}.txt`);
    await fs.write(path, content);
    return path;
  }
  const page = async (content: string | Uint8Array, offset = 1, limit = 5000, maxBytes = 2 * MiB) =>
    readLinePage(fs, await fileOf(content), { offset, limit, maxBytes });

  it('counts lines as workspace-files does: a final newline ends the last line, an empty line still counts', async () => {
    expect(await page('a\nb\n\n')).toEqual({ text: 'a\nb\n', lines: 3, eof: true });
    expect(await page('a\nb\n')).toEqual({ text: 'a\nb', lines: 2, eof: true });
    expect(await page('a\nb')).toEqual({ text: 'a\nb', lines: 2, eof: true });
    expect(await page('\n')).toEqual({ text: '', lines: 1, eof: true });
    expect(await page('')).toEqual({ text: '', lines: 0, eof: true });
  });

  it('pages by offset and limit, with eof exactly when the page holds the last line', async () => {
    const text = 'a\nb\nc\n';
    expect(await page(text, 1, 2)).toEqual({ text: 'a\nb', lines: 2, eof: false });
    expect(await page(text, 2, 2)).toEqual({ text: 'b\nc', lines: 2, eof: true });
    expect(await page(text, 1, 3)).toEqual({ text: 'a\nb\nc', lines: 3, eof: true });
    expect(await page('a\nb\nc', 3, 1)).toEqual({ text: 'c', lines: 1, eof: true });
  });

  it('answers an offset past the end with an empty page and eof', async () => {
    expect(await page('a\nb\n', 3)).toEqual({ text: '', lines: 0, eof: true });
    expect(await page('a\nb', 9)).toEqual({ text: '', lines: 0, eof: true });
    expect(await page('', 2)).toEqual({ text: '', lines: 0, eof: true });
  });

  it('keeps carriage returns and a byte order mark', async () => {
    expect(await page('\ufeffa\r\nb\r\n')).toEqual({ text: '\ufeffa\r\nb\r', lines: 2, eof: true });
  });

  it('fails too-large when the page text exceeds maxBytes, inclusive cap, lines before the page not counted', async () => {
    expect(await page('abcde\n', 1, 10, 5)).toEqual({ text: 'abcde', lines: 1, eof: true });
    expect(await page('ab\ncd', 1, 10, 5)).toEqual({ text: 'ab\ncd', lines: 2, eof: true });
    for (const content of ['abcdef', 'ab\ncde', 'abcdef\n']) {
      await expect(page(content, 1, 10, 5), content).rejects.toMatchObject({
        code: 'too-large',
        status: 413,
        details: { limit: 5 },
      });
    }
    expect(await page('x'.repeat(100) + '\nok\n', 2, 10, 5)).toEqual({ text: 'ok', lines: 1, eof: true });
  });

  it('fails not-text for bytes that are not UTF-8 up to the end of the page, or a NUL in the page', async () => {
    const bad = (before: number[], pageBytes: number[], after: number[]) =>
      new Uint8Array([...before, ...pageBytes, ...after]);
    const line = [0x6f, 0x6b, 0x0a]; // "ok\n"
    await expect(page(bad([0xff, 0x0a], line, []), 2)).rejects.toMatchObject({ code: 'not-text', status: 415 });
    await expect(page(bad([], [0x61, 0x00, 0x0a], []), 1)).rejects.toMatchObject({ code: 'not-text' });
    await expect(page(bad([], [0x61, 0xe2, 0x82], []), 1)).rejects.toMatchObject({ code: 'not-text' });
    // Past the page nothing is inspected; before it a NUL is fine (it is valid UTF-8).
    expect(await page(bad([0x00, 0x0a], line, [0xff, 0x00]), 2, 1)).toEqual({ text: 'ok', lines: 1, eof: false });
    // The caps gate comes before the text gate.
    await expect(page(bad([0xff, 0x0a], [0x61, 0x61, 0x61], []), 2, 1, 2)).rejects.toMatchObject({ code: 'too-large' });
  });

  it('matches the rules on random files, cut into random chunks down to single bytes', async () => {
    const random = seededRandom(name === 'memory' ? 21 : 22);
    const rounds = name === 'memory' ? 1200 : 200;
    for (let round = 0; round < rounds; round++) {
      const bytes = randomBytesFrom(random, 40, round % 4 === 0);
      const offset = 1 + Math.floor(random() * 12);
      const limit = 1 + Math.floor(random() * 6);
      const maxBytes = random() < 0.3 ? Math.floor(random() * 12) : 1000;
      const chunked = countingFileSystem(fs, () => 1 + Math.floor(random() * 5));
      const path = await fileOf(bytes);
      const got = await outcome(readLinePage(chunked, path, { offset, limit, maxBytes }));
      const where = `round ${round}: ${Buffer.from(bytes).toString('hex')} offset ${offset} limit ${limit} max ${maxBytes}`;
      expect(got, where).toEqual(referencePage(bytes, offset, limit, maxBytes));
    }
  });

  it('stops reading at the first byte past the page and cancels the stream', async () => {
    const line = 'z'.repeat(99) + '\n';
    const counting = countingFileSystem(fs, () => 4096);
    const path = await fileOf(line.repeat(10_000)); // ~1 MB
    expect(await readLinePage(counting, path, { offset: 3, limit: 2, maxBytes: MiB })).toEqual({
      text: line.repeat(2).slice(0, -1),
      lines: 2,
      eof: false,
    });
    expect(counting.pulled).toBe(4096); // lines 3-4 end at byte 400; one chunk holds them and the next byte
    expect(counting.cancelled).toBe(1);
    expect(counting.wholeReads).toBe(0);
  });
});

describe('readLinePage on large files (node)', () => {
  let dir: string;
  const fs = new NodeFileSystem();
  beforeAll(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-page-large-')));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** Writes `blocks` copies of `block` (so big files cost one small buffer to make). */
  async function repeatFile(name: string, head: Uint8Array, block: Uint8Array, blocks: number): Promise<string> {
    const path = join(dir, name);
    const handle = await open(path, 'w');
    try {
      await handle.write(head);
      for (let i = 0; i < blocks; i++) await handle.write(block);
    } finally {
      await handle.close();
    }
    return path;
  }

  it('reads the last page of a 64 MiB log holding one page of memory, not the file', async () => {
    const line = encoder.encode('0123456789'.repeat(6) + 'abcdefghijklmnopqrstuvwxyz0123456789A\n'); // 98 bytes
    const perBlock = 10_700;
    const block = new Uint8Array(line.length * perBlock);
    for (let i = 0; i < perBlock; i++) block.set(line, i * line.length);
    const blocks = Math.ceil((64 * MiB) / block.length);
    const path = await repeatFile('64mib.log', new Uint8Array(0), block, blocks);
    const totalLines = perBlock * blocks;

    // Retained memory, measured after a full collection at regular points of the stream: a reader that kept
    // what it had pulled would hold tens of MiB by the end.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const retained = async () => {
      gc();
      await nextTurn();
      gc();
      return process.memoryUsage().arrayBuffers;
    };
    const baseline = await retained();
    let peak = 0;
    let chunks = 0;
    const counting = countingFileSystem(fs);
    const sampling = withOverrides<FileSystem>(counting, {
      readStream: async (p: string) => {
        const reader = (await counting.readStream(p)).getReader();
        return new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (++chunks % 32 === 0) peak = Math.max(peak, (await retained()) - baseline);
            const { done, value } = await reader.read();
            if (done) controller.close();
            else controller.enqueue(value);
          },
          cancel: (reason) => reader.cancel(reason),
        }, { highWaterMark: 0 });
      },
    });

    const result = await readLinePage(sampling, path, { offset: totalLines - 9, limit: 5000, maxBytes: 2 * MiB });
    const expectedText = new TextDecoder().decode(line).repeat(10).slice(0, -1);
    expect(result).toEqual({ text: expectedText, lines: 10, eof: true });
    expect(counting.pulled).toBe(block.length * blocks); // every byte streamed once (no line index: the seed's design)
    expect(counting.wholeReads).toBe(0);
    expect(chunks).toBeGreaterThan(200);
    expect(peak).toBeLessThan(8 * MiB);
  });

  it('fails one giant line too-large after pulling about maxBytes, not the line', async () => {
    const maxBytes = MiB;
    const head = encoder.encode('short first line\n');
    const block = encoder.encode('g'.repeat(64 * 1024));
    const path = await repeatFile('giant.log', head, block, 256); // a 16 MiB second line
    const counting = countingFileSystem(fs);
    await expect(readLinePage(counting, path, { offset: 2, limit: 10, maxBytes })).rejects.toMatchObject({
      code: 'too-large',
      details: { limit: maxBytes },
    });
    // The page's first byte, the cap, and at most one stream chunk (256 KiB) that crossed it.
    expect(counting.pulled).toBeLessThanOrEqual(head.length + maxBytes + 1 + 256 * 1024);
    expect(counting.cancelled).toBe(1);
    // The same line read as the first line of the page from the file start fails the same way.
    await expect(readLinePage(fs, path, { offset: 1, limit: 2, maxBytes })).rejects.toMatchObject({ code: 'too-large' });
  });
});
