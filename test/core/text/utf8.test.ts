import { describe, expect, it } from 'vitest';
import { decodeText, firstCharacterStart, isAscii, lastCharacterEnd, Utf8Validator } from '../../../core/text/utf8.ts';
import { randomBytesFrom, seededRandom } from './generators.ts';

const encode = (text: string) => new TextEncoder().encode(text);

function referenceValid(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

describe('isAscii', () => {
  it('finds a high byte at every position and alignment', () => {
    const backing = new Uint8Array(64).fill(0x41);
    for (let start = 0; start < 8; start++) {
      for (let length = 0; length <= 40; length++) {
        const view = backing.subarray(start, start + length);
        expect(isAscii(view)).toBe(true);
        for (let at = 0; at < length; at++) {
          view[at] = 0x80;
          expect(isAscii(view), `start ${start} length ${length} at ${at}`).toBe(false);
          view[at] = 0x41;
        }
      }
    }
  });
});

describe('character edges', () => {
  const bytes = encode('a€b😀'); // a | e2 82 ac | b | f0 9f 98 80

  it('firstCharacterStart skips the continuation bytes of a cut character', () => {
    expect(firstCharacterStart(bytes, 0, bytes.length)).toBe(0);
    expect(firstCharacterStart(bytes, 2, bytes.length)).toBe(4);
    expect(firstCharacterStart(bytes, 3, bytes.length)).toBe(4);
    expect(firstCharacterStart(bytes, 6, bytes.length)).toBe(9);
    expect(firstCharacterStart(bytes, 6, 8)).toBe(8); // stops at the window's end
  });

  it('lastCharacterEnd drops a character the window cuts, and nothing else', () => {
    expect(lastCharacterEnd(bytes, 0, bytes.length)).toBe(bytes.length);
    expect(lastCharacterEnd(bytes, 0, 8)).toBe(5);
    expect(lastCharacterEnd(bytes, 0, 7)).toBe(5);
    expect(lastCharacterEnd(bytes, 0, 6)).toBe(5);
    expect(lastCharacterEnd(bytes, 0, 5)).toBe(5);
    expect(lastCharacterEnd(bytes, 0, 4)).toBe(4);
    expect(lastCharacterEnd(bytes, 0, 3)).toBe(1);
    expect(lastCharacterEnd(bytes, 0, 2)).toBe(1);
    expect(lastCharacterEnd(bytes, 2, 3)).toBe(3); // continuation bytes only: left for the validator
  });
});

describe('Utf8Validator', () => {
  it('agrees with a fatal TextDecoder on random bytes split into random chunks', () => {
    const random = seededRandom(7);
    for (let round = 0; round < 3000; round++) {
      const bytes = randomBytesFrom(random, 1 + Math.floor(random() * 40), round % 3 === 0);
      const validator = new Utf8Validator();
      let at = 0;
      let ok = true;
      while (at < bytes.length) {
        const next = Math.min(bytes.length, at + 1 + Math.floor(random() * 9));
        ok = validator.push(bytes.subarray(at, next)) && ok;
        at = next;
      }
      expect(validator.end(), Buffer.from(bytes).toString('hex')).toBe(referenceValid(bytes));
      if (!ok) expect(referenceValid(bytes)).toBe(false);
    }
  });

  it('refuses a stream that ends inside a character, and accepts one split inside a character', () => {
    const euro = encode('€');
    const cut = new Utf8Validator();
    cut.push(euro.subarray(0, 2));
    expect(cut.end()).toBe(false);
    const split = new Utf8Validator();
    split.push(euro.subarray(0, 1));
    split.push(euro.subarray(1, 2));
    split.push(euro.subarray(2));
    split.push(encode('plain ascii after it'));
    expect(split.end()).toBe(true);
  });

  it('refuses an ASCII chunk that follows an unfinished character', () => {
    const validator = new Utf8Validator();
    validator.push(new Uint8Array([0xe2, 0x82]));
    expect(validator.push(encode('abc'))).toBe(false);
    expect(validator.end()).toBe(false);
  });
});

describe('decodeText', () => {
  it('keeps a byte order mark and refuses NUL bytes and invalid UTF-8', () => {
    expect(decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]))).toBe('\ufeffa');
    expect(decodeText(encode('a\0b'))).toBeUndefined();
    expect(decodeText(new Uint8Array([0x63, 0xe9]))).toBeUndefined();
    expect(decodeText(encode('x\r\ny'))).toBe('x\r\ny');
  });
});
