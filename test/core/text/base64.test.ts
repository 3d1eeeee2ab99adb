import { describe, expect, it } from 'vitest';
import { decodeBase64, encodeBase64, encodeBase64WithBtoa, InvalidBase64Error } from '../../../core/text/base64.ts';
import { seededRandom } from './generators.ts';

describe('encodeBase64', () => {
  it('matches RFC 4648 base64 at every padding length and across its internal slices', () => {
    const random = seededRandom(3);
    for (const length of [0, 1, 2, 3, 4, 5, 0x7fff, 0x8000, 0x8001, 3 * 0x8000 + 2, 2 * 1024 * 1024]) {
      const bytes = new Uint8Array(length).map(() => Math.floor(random() * 256));
      // Both encoders: Node's (the fast path here) and the Web-API one every other runtime uses.
      expect(encodeBase64(bytes), `length ${length}`).toBe(Buffer.from(bytes).toString('base64'));
      expect(encodeBase64WithBtoa(bytes), `btoa, length ${length}`).toBe(Buffer.from(bytes).toString('base64'));
    }
    for (const encode of [encodeBase64, encodeBase64WithBtoa]) {
      expect(encode(new TextEncoder().encode('foobar'))).toBe('Zm9vYmFy');
      expect(encode(new TextEncoder().encode('fo'))).toBe('Zm8=');
      expect(encode(new Uint8Array([1, 2, 3, 4, 5]).subarray(1, 4))).toBe('AgME'); // a view, not its buffer
    }
  });

  it('encodes a view, not its whole buffer', () => {
    const backing = new Uint8Array([1, 2, 3, 4, 5, 6]);
    expect(encodeBase64(backing.subarray(2, 4))).toBe(Buffer.from([3, 4]).toString('base64'));
  });
});

describe('decodeBase64', () => {
  it('inverts encodeBase64 at every padding length and across its slices, padded or not', () => {
    const random = seededRandom(5);
    for (const length of [0, 1, 2, 3, 4, 5, 0x8000, 0x8001, 3 * 0x8000 + 2, 1024 * 1024 + 1]) {
      const bytes = new Uint8Array(length).map(() => Math.floor(random() * 256));
      const text = Buffer.from(bytes).toString('base64');
      // Buffer#equals: vitest's deep equality walks a megabyte element by element.
      expect(Buffer.from(decodeBase64(text)).equals(bytes), `length ${length}`).toBe(true);
      expect(Buffer.from(decodeBase64(text.replace(/=+$/, ''))).equals(bytes), `length ${length} unpadded`).toBe(true);
    }
    expect(new TextDecoder().decode(decodeBase64('Zm9vYmFy'))).toBe('foobar');
    expect(new TextDecoder().decode(decodeBase64('Zm8='))).toBe('fo');
    expect(decodeBase64('')).toEqual(new Uint8Array(0));
  });

  it('refuses what Node and atob would let through, saying where', () => {
    const refusals: [string, string][] = [
      ['Zm9v YmFy', 'Invalid base64: unexpected character " " at offset 4'],
      ['Zm9v\nYmFy', 'Invalid base64: unexpected character "\\n" at offset 4'],
      ['Zm9v%mFy', 'Invalid base64: unexpected character "%" at offset 4'],
      ['Zm9-', 'Invalid base64: unexpected character "-" at offset 3'],
      ['Zm_v', 'Invalid base64: unexpected character "_" at offset 2'],
      ['Zm9vé', 'Invalid base64: unexpected character "é" at offset 4'],
      ['Zm=v', "Invalid base64: unexpected '=' before the end at offset 2"],
      ['Z===', "Invalid base64: unexpected '=' before the end at offset 1"],
      ['Zm9=Zm9v', "Invalid base64: unexpected '=' before the end at offset 3"],
      ['Zg=', 'Invalid base64: padded text must be a multiple of 4 characters long (got 3)'],
      ['Zm9vY', 'Invalid base64: 5 characters cannot be whole bytes (one too many)'],
      ['not base64!', 'Invalid base64: unexpected character " " at offset 3'],
    ];
    for (const [text, message] of refusals) {
      let thrown: unknown;
      try {
        decodeBase64(text);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, text).toBeInstanceOf(InvalidBase64Error);
      expect((thrown as Error).message, text).toBe(message);
    }
  });
});
