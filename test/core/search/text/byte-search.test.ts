import { describe, expect, it } from 'vitest';
import { byteSearch } from '../../../../core/search/text/byte-search.ts';
import { seededRandom } from '../../text/generators.ts';

const encode = (text: string) => new TextEncoder().encode(text);

/** The reference: every offset tried. */
function naive(bytes: Uint8Array, needle: Uint8Array, fold: boolean, from: number, end: number): number {
  const f = (byte: number) => (fold && byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte);
  for (let at = from; at + needle.length <= end; at++) {
    let i = 0;
    while (i < needle.length && f(bytes[at + i]!) === f(needle[i]!)) i++;
    if (i === needle.length) return at;
  }
  return -1;
}

describe('byteSearch', () => {
  it('finds needles exactly or ASCII-folded, by rare byte (q, Z) and by Horspool (common bytes only)', () => {
    const bytes = encode('the Quick brown fox; irq_Domain_ALLOC and irq_domain_alloc, zeta Zeta');
    expect(byteSearch(encode('irq_domain_alloc'), false).indexIn(bytes, 0, bytes.length)).toBe(42);
    expect(byteSearch(encode('irq_domain_alloc'), true).indexIn(bytes, 0, bytes.length)).toBe(21);
    expect(byteSearch(encode('QUICK'), true).indexIn(bytes, 0, bytes.length)).toBe(4);
    expect(byteSearch(encode('Zeta'), false).indexIn(bytes, 0, bytes.length)).toBe(65);
    expect(byteSearch(encode('brown'), false).indexIn(bytes, 0, bytes.length)).toBe(10);
    // `end` bounds the search: a match running past it is not found.
    expect(byteSearch(encode('Zeta'), false).indexIn(bytes, 0, bytes.length - 1)).toBe(-1);
    expect(byteSearch(encode('brown'), false).indexIn(bytes, 11, bytes.length)).toBe(-1);
  });

  it('agrees with trying every offset (random bytes, needles and ranges)', () => {
    const random = seededRandom(11);
    const alphabet = encode('aAqQzZeE _\né');
    for (let round = 0; round < 2000; round++) {
      const bytes = Uint8Array.from({ length: Math.floor(random() * 60) }, () => alphabet[Math.floor(random() * alphabet.length)]!);
      const needle = Uint8Array.from({ length: 1 + Math.floor(random() * 4) }, () => alphabet[Math.floor(random() * alphabet.length)]!);
      const fold = random() < 0.5;
      const end = Math.floor(random() * (bytes.length + 1));
      const from = Math.floor(random() * (end + 1));
      expect({ bytes, needle, fold, from, end, at: byteSearch(needle, fold).indexIn(bytes, from, end) }).toEqual({
        bytes, needle, fold, from, end, at: naive(bytes, needle, fold, from, end),
      });
    }
  });
});
