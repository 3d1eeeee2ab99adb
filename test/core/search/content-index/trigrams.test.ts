import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../text/generators.ts';
import { literalGramRuns, literalTrigrams, nextBit, TrigramCollector } from '../../../../core/search/content-index/trigrams.ts';

const bytes = (text: string) => new TextEncoder().encode(text);
const tri = (text: string) => {
  const b = bytes(text);
  return (b[0]! << 16) | (b[1]! << 8) | b[2]!;
};

function collected(text: string | Uint8Array) {
  const collector = new TrigramCollector();
  const result = collector.collect(typeof text === 'string' ? bytes(text) : text);
  return { ...result, set: [...collector.sortedCopy(result.count).trigrams] };
}

describe('TrigramCollector', () => {
  it('collects each distinct trigram once, ASCII letters folded', () => {
    const result = collected('abcABCabc');
    expect(result.binary).toBe(false);
    expect(result.set).toEqual([tri('abc'), tri('bca'), tri('cab')].sort((a, b) => a - b));
  });

  it('keeps non-ASCII bytes as they are (É is not folded to é)', () => {
    const upper = collected('xÉy').set;
    const lower = collected('xéy').set;
    expect(upper).not.toEqual(lower);
    expect(upper).toHaveLength(2); // x C3 89, C3 89 y
  });

  it('is cleared between files: a second file does not inherit the first one', () => {
    const collector = new TrigramCollector();
    const first = collector.collect(bytes('hello world'));
    expect(first.count).toBe(9);
    const second = collector.collect(bytes('hello'));
    expect(collector.sortedCopy(second.count)).toEqual({
      trigrams: Uint32Array.from([tri('hel'), tri('ell'), tri('llo')]).sort(),
      // In trigram order: 'ell' at 1 then 'o', 'hel' at 0 then 'l', 'llo' at 2 at the end; nothing of the first file.
      masks: Uint16Array.of(2 | nextBit(0x6f), 1 | nextBit(0x6c), 4),
    });
  });

  it('marks a file holding a NUL as binary, with no trigrams, wherever the NUL is', () => {
    for (const text of ['\0abcdef', 'a\0bcdef', 'abcdef\0', 'ab\0']) {
      const result = collected(bytes(text));
      expect(result).toEqual({ binary: true, foldVariant: false, count: 0, set: [] });
    }
  });

  it('files shorter than three bytes have no trigrams', () => {
    expect(collected('ab')).toEqual({ binary: false, foldVariant: false, count: 0, set: [] });
    expect(collected('')).toEqual({ binary: false, foldVariant: false, count: 0, set: [] });
  });

  it('flags the non-ASCII case variants of k and s (Kelvin sign, long s), at the start too', () => {
    expect(collected('the \u212Aelvin').foldVariant).toBe(true);
    expect(collected('ſtart').foldVariant).toBe(true);
    expect(collected('a ſ').foldVariant).toBe(true);
    expect(collected('plain ascii and é').foldVariant).toBe(false);
  });

  it('grows past its initial table for a file with many distinct trigrams', () => {
    const next = seededRandom(7);
    const random = new Uint8Array(300_000);
    for (let i = 0; i < random.length; i++) random[i] = 1 + Math.floor(next() * 255);
    const result = collected(random);
    expect(result.count).toBeGreaterThan(1 << 16);
    expect(new Set(result.set).size).toBe(result.count);
  });
});

describe('GramMasks', () => {
  it('hold each start offset mod 8 and a bit of each folded byte that follows', () => {
    const collector = new TrigramCollector();
    const { count } = collector.collect(bytes('abcXabc......ABCy'));
    const { trigrams, masks } = collector.sortedCopy(count);
    const abc = masks[trigrams.indexOf(tri('abc'))]!;
    // Starts 0, 4 and 13 (13 & 7 = 5); followed by X (folded x), nothing (no: "abc." at 4) and y.
    expect(abc & 0xff).toBe((1 << 0) | (1 << 4) | (1 << 5));
    expect(abc >>> 8 << 8).toBe(nextBit(0x78) | nextBit(0x2e) | nextBit(0x79));
    const { count: last } = collector.collect(bytes('zzabc'));
    expect(collector.sortedCopy(last).masks[collector.sortedCopy(last).trigrams.indexOf(tri('abc'))]).toBe(1 << 2); // at the end: no next byte
  });

  it('a literal is runs of trigrams with their offsets and next bytes; case-insensitive splits at non-ASCII', () => {
    expect(literalGramRuns('Abcd', true)).toEqual([[
      { trigram: tri('abc'), offset: 0, next: nextBit(0x64) },
      { trigram: tri('bcd'), offset: 1, next: 0 },
    ]]);
    expect(literalGramRuns('abcéxyz1', false)).toEqual([
      [{ trigram: tri('abc'), offset: 0, next: 0 }],
      [{ trigram: tri('xyz'), offset: 0, next: nextBit(0x31) }, { trigram: tri('yz1'), offset: 1, next: 0 }],
    ]);
    // Case-sensitive, non-ASCII bytes are part of the one run, at their byte offsets.
    const runs = literalGramRuns('abcéx', true);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.map((gram) => gram.offset)).toEqual([0, 1, 2, 3]);
  });
});

describe('literalTrigrams', () => {
  it('folds ASCII and deduplicates', () => {
    expect(literalTrigrams('AbcAbc', true).sort()).toEqual([tri('abc'), tri('bca'), tri('cab')].sort());
  });

  it('is empty below three bytes', () => {
    expect(literalTrigrams('ab', false)).toEqual([]);
    expect(literalTrigrams('', true)).toEqual([]);
  });

  it('case-insensitive: drops trigrams touching a non-ASCII byte; case-sensitive keeps them', () => {
    expect(literalTrigrams('aébc', false)).toEqual([]); // a C3 A9 · C3 A9 b · A9 b c
    expect(literalTrigrams('aébcd', false)).toEqual([tri('bcd')]);
    expect(literalTrigrams('aébc', true)).toHaveLength(3);
  });
});
