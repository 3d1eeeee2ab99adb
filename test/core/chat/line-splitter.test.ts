/** A CLI's output as chat chunks: lines, terminators stripped, lossy UTF-8, long lines in bounded pieces. */
import { describe, expect, it } from 'vitest';
import { LineSplitter, MAX_LINE_BYTES } from '../../../core/chat/line-splitter.ts';

function split(chunks: (string | number[])[], maxLineBytes?: number): string[] {
  const lines: string[] = [];
  const splitter = new LineSplitter((line) => lines.push(line), maxLineBytes);
  for (const chunk of chunks) splitter.push(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : new Uint8Array(chunk));
  splitter.end();
  return lines;
}

describe('LineSplitter', () => {
  it('strips \\n and \\r\\n, keeps empty lines and a last unterminated piece', () => {
    expect(split(['a\r\n\nb\n', 'c'])).toEqual(['a', '', 'b', 'c']);
    expect(split(['a\n'])).toEqual(['a']);
    expect(split([''])).toEqual([]);
    // A lone \r inside a line is text; only the one before \n is a terminator.
    expect(split(['a\rb\r\r\n'])).toEqual(['a\rb\r']);
  });

  it('joins a line written in several chunks, even a \\r\\n split across two', () => {
    expect(split(['he', 'll', 'o\r', '\nworld'])).toEqual(['hello', 'world']);
  });

  it('decodes each line lossily: bytes that are not UTF-8 become U+FFFD, the stream goes on', () => {
    expect(split([[0x61, 0xff, 0x62, 0x0a], 'ok\n'])).toEqual(['a\ufffdb', 'ok']);
    // A character split across chunks is whole again.
    expect(split([[0xc3], [0xa9, 0x0a]])).toEqual(['é']);
  });

  it('sends a line longer than the cap in pieces of at most the cap, cut at a character boundary', () => {
    expect(split(['abcdefghij\n'], 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(split(['héllo wörld\n'], 4)).toEqual(['hél', 'lo w', 'örl', 'd']);
    // Exactly twice the cap: two full pieces, no empty third one; a \r\n after a full piece adds nothing.
    expect(split(['abcdefgh\r\n'], 4)).toEqual(['abcd', 'efgh']);
    expect(split(['abcd\r', '\n'], 4)).toEqual(['abcd']);
  });

  it('holds at most the cap (plus one byte) of a line that never ends', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line));
    const chunk = new Uint8Array(64 * 1024).fill(0x78);
    for (let i = 0; i < 80; i++) splitter.push(chunk); // 5 MiB, no newline
    expect(lines.map((line) => line.length)).toEqual([MAX_LINE_BYTES, MAX_LINE_BYTES, MAX_LINE_BYTES, MAX_LINE_BYTES]);
    splitter.end();
    expect(lines.map((line) => line.length)).toEqual([MAX_LINE_BYTES, MAX_LINE_BYTES, MAX_LINE_BYTES, MAX_LINE_BYTES, MAX_LINE_BYTES]);
  });
});
