import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../adapters/fs/file-system.ts';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { readTextWindow, type TextWindowRequest } from '../../../core/text/text-window.ts';
import { withOverrides } from '../../support/with-overrides.ts';
import { randomText, seededRandom } from './generators.ts';

const encoder = new TextEncoder();
const CAP = 4 * 1024 * 1024;

const backends: [string, () => Promise<{ fs: FileSystem; dir: string; cleanup(): Promise<void> }>][] = [
  ['memory', async () => ({ fs: new MemoryFileSystem(), dir: '/', cleanup: async () => {} })],
  [
    'node',
    async () => {
      const dir = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-window-')));
      return { fs: new NodeFileSystem(), dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
    },
  ],
];

describe.each(backends)('readTextWindow (%s)', (_name, makeBackend) => {
  let fs: FileSystem;
  let dir: string;
  let cleanup: () => Promise<void>;
  let serial = 0;
  beforeAll(async () => ({ fs, dir, cleanup } = await makeBackend()));
  afterAll(() => cleanup());

  async function windowOf(text: string | Uint8Array, request: TextWindowRequest, cap = CAP) {
    const path = join(dir, `f${serial++}.txt`);
    const bytes = typeof text === 'string' ? encoder.encode(text) : text;
    await fs.write(path, bytes);
    return readTextWindow(fs, path, bytes.length, request, cap);
  }

  it('serves a whole small file from the start', async () => {
    expect(await windowOf('one\ntwo\nthree', {})).toEqual({ content: 'one\ntwo\nthree', offset: 0, bytes: 13 });
    expect(await windowOf('', {})).toEqual({ content: '', offset: 0, bytes: 0 });
  });

  it('drops a partial first line, and keeps a first line that starts right after a newline', async () => {
    //              0123 4567 89012
    const text = 'one\ntwo\nthree';
    expect(await windowOf(text, { offset: 1 })).toEqual({ content: 'two\nthree', offset: 4, bytes: 9 });
    expect(await windowOf(text, { offset: 3 })).toEqual({ content: 'two\nthree', offset: 4, bytes: 9 });
    expect(await windowOf(text, { offset: 4 })).toEqual({ content: 'two\nthree', offset: 4, bytes: 9 });
  });

  it('cuts the end back to the last newline unless the window reaches the end of the file', async () => {
    const text = 'one\ntwo\nthree';
    expect(await windowOf(text, { limit: 10 })).toEqual({ content: 'one\ntwo\n', offset: 0, bytes: 8 });
    expect(await windowOf(text, { limit: 8 })).toEqual({ content: 'one\ntwo\n', offset: 0, bytes: 8 });
    expect(await windowOf(text, { limit: 7 })).toEqual({ content: 'one\n', offset: 0, bytes: 4 });
    expect(await windowOf(text, { offset: 4, limit: 9 })).toEqual({ content: 'two\nthree', offset: 4, bytes: 9 });
  });

  it('keeps the bytes of a window holding no newline, dropping only a cut character', async () => {
    expect(await windowOf('abcdefgh', { offset: 2, limit: 3 })).toEqual({ content: 'cde', offset: 2, bytes: 3 });
    // "a€b€c": a | e2 82 ac | b | e2 82 ac | c
    const text = 'a€b€c';
    expect(await windowOf(text, { offset: 0, limit: 3 })).toEqual({ content: 'a', offset: 0, bytes: 1 });
    expect(await windowOf(text, { offset: 2, limit: 4 })).toEqual({ content: 'b', offset: 4, bytes: 1 });
    expect(await windowOf(text, { offset: 1, limit: 7 })).toEqual({ content: '€b€', offset: 1, bytes: 7 });
    expect(await windowOf(text, { offset: 6, limit: 10 })).toEqual({ content: 'c', offset: 8, bytes: 1 });
    expect(await windowOf('😀', { limit: 2 })).toEqual({ content: '', offset: 0, bytes: 0 });
  });

  it('serves an empty window at the next line start when the window holds only the end of one line', async () => {
    // [1, 6) = "ne\ntw": the partial first line goes, and the end is cut back to that same newline.
    expect(await windowOf('one\ntwo\nthree', { offset: 1, limit: 5 })).toEqual({ content: '', offset: 4, bytes: 0 });
  });

  it('reads a tail for a negative offset, clamped at the file start', async () => {
    const text = 'one\ntwo\nthree\n';
    expect(await windowOf(text, { offset: -8 })).toEqual({ content: 'three\n', offset: 8, bytes: 6 });
    expect(await windowOf(text, { offset: -10 })).toEqual({ content: 'two\nthree\n', offset: 4, bytes: 10 });
    expect(await windowOf(text, { offset: -1000 })).toEqual({ content: text, offset: 0, bytes: 14 });
    expect(await windowOf(text, { offset: -1000, limit: 5 })).toEqual({ content: 'one\n', offset: 0, bytes: 4 });
  });

  it('serves an empty window at the end for an offset at or past it', async () => {
    expect(await windowOf('abc\n', { offset: 4 })).toEqual({ content: '', offset: 4, bytes: 0 });
    expect(await windowOf('abc\n', { offset: 99 })).toEqual({ content: '', offset: 4, bytes: 0 });
  });

  it('keeps carriage returns and a byte order mark', async () => {
    expect(await windowOf('\ufeffa\r\nb\r\n', {})).toEqual({ content: '\ufeffa\r\nb\r\n', offset: 0, bytes: 9 });
  });

  it('never serves more than the cap, however large the limit', async () => {
    const line = 'x'.repeat(99) + '\n';
    expect(await windowOf(line.repeat(10), { limit: 10_000 }, 350)).toEqual({
      content: line.repeat(3),
      offset: 0,
      bytes: 300,
    });
  });

  it('refuses a window that is not UTF-8 or holds a NUL byte, and ignores bytes outside it', async () => {
    const latin1 = new Uint8Array([0x61, 0x0a, 0x63, 0x61, 0x66, 0xe9, 0x0a, 0x62]);
    await expect(windowOf(latin1, {})).rejects.toMatchObject({ code: 'not-text', status: 415 });
    await expect(windowOf('a\0b', {})).rejects.toMatchObject({ code: 'not-text' });
    expect(await windowOf(latin1, { limit: 2 })).toEqual({ content: 'a\n', offset: 0, bytes: 2 });
  });

  it('reads only the window and the byte before it, never the whole file', async () => {
    const path = join(dir, 'big.log');
    const bytes = encoder.encode(('y'.repeat(63) + '\n').repeat(16 * 1024)); // 1 MiB
    await fs.write(path, bytes);
    const ranges: { offset: number; length?: number }[] = [];
    const spy = withOverrides(fs, {
      read: (p: string, range?: { offset: number; length?: number }) => {
        ranges.push(range ?? { offset: 0 });
        return fs.read(p, range);
      },
    });
    const window = await readTextWindow(spy, path, bytes.length, { offset: 500_000, limit: 1000 }, CAP);
    expect(ranges).toEqual([{ offset: 499_999, length: 1001 }]);
    expect(window.offset).toBe(500_032); // the next line start after 500 000 (lines are 64 bytes)
    expect(window.bytes).toBe(960);
  });

  // Property-style: random texts, offsets and limits, checked against the rules stated independently.
  it('obeys every window rule on random texts', async () => {
    const random = seededRandom(_name === 'memory' ? 11 : 12);
    const rounds = _name === 'memory' ? 1500 : 200;
    for (let round = 0; round < rounds; round++) {
      const text = randomText(random, 30);
      const bytes = encoder.encode(text);
      const size = bytes.length;
      const offset = Math.floor(random() * (size + 6)) - (random() < 0.3 ? size + 3 : 0);
      const limit = 1 + Math.floor(random() * 16);
      const where = `round ${round}: ${JSON.stringify(text)} offset ${offset} limit ${limit}`;
      const window = await windowOf(bytes, { offset, limit });

      const start = offset >= 0 ? Math.min(offset, size) : Math.max(0, size + offset);
      const end = Math.min(size, start + limit);
      const served = bytes.subarray(window.offset, window.offset + window.bytes);
      // What is reported is what is served, and it lies inside the asked-for window.
      expect(encoder.encode(window.content), where).toEqual(served);
      expect(window.offset, where).toBeGreaterThanOrEqual(start);
      expect(window.offset + window.bytes, where).toBeLessThanOrEqual(end);
      const asked = bytes.subarray(start, end);
      if (asked.includes(0x0a)) {
        // Whole lines: it starts at a line start and ends after a newline or at the end of the file.
        expect(window.offset === 0 || bytes[window.offset - 1] === 0x0a, where).toBe(true);
        const stop = window.offset + window.bytes;
        expect(stop === size || bytes[stop - 1] === 0x0a, where).toBe(true);
        // And as many of them as fit: nothing is dropped but the partial lines at the edges.
        const firstLineStart = start === 0 || bytes[start - 1] === 0x0a ? start : start + asked.indexOf(0x0a) + 1;
        const lastLineEnd = end === size ? end : start + asked.lastIndexOf(0x0a) + 1;
        expect([window.offset, window.offset + window.bytes], where).toEqual([firstLineStart, lastLineEnd]);
      } else {
        // No newline: the asked-for bytes less at most one cut character (≤ 3 bytes) at either edge.
        expect(window.offset - start, where).toBeLessThanOrEqual(3);
        expect(end - (window.offset + window.bytes), where).toBeLessThanOrEqual(3);
        if (window.bytes > 0) expect(bytes[window.offset]! & 0xc0, where).not.toBe(0x80);
      }
    }
  });

  it('pages through a file exactly when each window follows the last', async () => {
    const random = seededRandom(5);
    for (let round = 0; round < 40; round++) {
      const lines = Array.from({ length: 1 + Math.floor(random() * 30) }, () => randomText(random, 12).replace(/\n/g, ''));
      const text = lines.join('\n') + (random() < 0.5 ? '\n' : '');
      const longest = Math.max(...lines.map((line) => encoder.encode(line).length)) + 1;
      const path = join(dir, `paged${round}.txt`);
      const bytes = encoder.encode(text);
      await fs.write(path, bytes);
      let rebuilt = '';
      for (let at = 0; at < bytes.length; ) {
        const window = await readTextWindow(fs, path, bytes.length, { offset: at, limit: longest + Math.floor(random() * 20) }, CAP);
        expect(window.offset).toBe(at);
        expect(window.bytes).toBeGreaterThan(0);
        rebuilt += window.content;
        at = window.offset + window.bytes;
      }
      expect(rebuilt).toBe(text);
    }
  });
});
