import { describe, expect, it } from 'vitest';
import { encodeBase64 } from '../../../core/text/base64.ts';
import { seededRandom } from './generators.ts';

describe('encodeBase64', () => {
  it('matches RFC 4648 base64 at every padding length and across its internal slices', () => {
    const random = seededRandom(3);
    for (const length of [0, 1, 2, 3, 4, 5, 0x7fff, 0x8000, 0x8001, 3 * 0x8000 + 2, 2 * 1024 * 1024]) {
      const bytes = new Uint8Array(length).map(() => Math.floor(random() * 256));
      expect(encodeBase64(bytes), `length ${length}`).toBe(Buffer.from(bytes).toString('base64'));
    }
    expect(encodeBase64(new TextEncoder().encode('foobar'))).toBe('Zm9vYmFy');
    expect(encodeBase64(new TextEncoder().encode('fo'))).toBe('Zm8=');
  });

  it('encodes a view, not its whole buffer', () => {
    const backing = new Uint8Array([1, 2, 3, 4, 5, 6]);
    expect(encodeBase64(backing.subarray(2, 4))).toBe(Buffer.from([3, 4]).toString('base64'));
  });
});
