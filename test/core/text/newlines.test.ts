import { describe, expect, it } from 'vitest';
import { countNewlines } from '../../../core/text/newlines.ts';
import { seededRandom } from './generators.ts';

const naive = (bytes: Uint8Array) => bytes.reduce((n, b) => n + (b === 0x0a ? 1 : 0), 0);

describe('countNewlines', () => {
  it('counts exactly at every alignment and length, with look-alike bytes around', () => {
    const random = seededRandom(9);
    // Bytes a zero-byte test could confuse with 0x0A: neighbours, high-bit twins, zero, all ones.
    const alphabet = [0x0a, 0x0a, 0x0b, 0x09, 0x8a, 0x00, 0xff, 0x7f, 0x80, 0x41, 0x0e, 0x1a];
    const backing = new Uint8Array(80);
    for (let round = 0; round < 400; round++) {
      for (let i = 0; i < backing.length; i++) backing[i] = alphabet[Math.floor(random() * alphabet.length)]!;
      for (let start = 0; start < 4; start++) {
        for (const length of [0, 1, 3, 4, 5, 7, 8, 9, 31, 64, 76]) {
          const view = backing.subarray(start, start + length);
          expect(countNewlines(view), `round ${round} start ${start} length ${length}`).toBe(naive(view));
        }
      }
    }
  });

  it('counts a word of four newlines and a large buffer', () => {
    expect(countNewlines(new Uint8Array([10, 10, 10, 10]))).toBe(4);
    const big = new TextEncoder().encode('x'.repeat(99) + '\n').subarray(0);
    const many = new Uint8Array(big.length * 3000);
    for (let i = 0; i < 3000; i++) many.set(big, i * big.length);
    expect(countNewlines(many)).toBe(3000);
  });
});
