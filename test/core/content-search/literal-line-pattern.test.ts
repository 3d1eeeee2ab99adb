/**
 * A literal cut into pieces (core/content-search/literal-line-pattern.ts) finds exactly what one RegExp over the
 * whole literal finds: checked with tiny pieces against the one-RegExp form, over text rich in characters whose
 * case variants differ in bytes or length (K/k/KELVIN SIGN, s/ſ, σ/ς/Σ, é/É, an astral letter and its case pair).
 */
import { describe, expect, it } from 'vitest';
import { compileLiteralLinePattern } from '../../../core/content-search/literal-line-pattern.ts';
import type { LineMatch, LinePattern, PatternOptions } from '../../../core/content-search/line-pattern.ts';
import { seededRandom } from '../text/generators.ts';

const ALPHABET = ['a', 'A', 'k', 'K', '\u212a', 's', 'S', '\u017f', 'σ', 'ς', 'Σ', 'é', 'É', '𐐀', '𐐨', '_', ' ', '.', '('];

function allMatches(pattern: LinePattern, line: string): LineMatch[] {
  const found: LineMatch[] = [];
  for (let match = pattern.next(line, 0); match !== null; match = pattern.next(line, match.end)) found.push(match);
  return found;
}

describe('compileLiteralLinePattern', () => {
  it('in pieces, matches exactly as one RegExp would (random literals and lines, every switch)', () => {
    const random = seededRandom(5);
    const pick = (length: number) => Array.from({ length }, () => ALPHABET[Math.floor(random() * ALPHABET.length)]).join('');
    for (let round = 0; round < 150; round++) {
      const query = pick(2 + Math.floor(random() * 6));
      // Lines that hold the query (in some case) between random text, and random lines.
      const variant = [...query].map((char) => (random() < 0.5 ? char.toUpperCase() : char.toLowerCase())).join('');
      const line = random() < 0.7 ? pick(Math.floor(random() * 6)) + variant + pick(Math.floor(random() * 6)) + query : pick(12);
      const options: PatternOptions = { query, caseSensitive: random() < 0.3, wholeWord: random() < 0.4 };
      const whole = compileLiteralLinePattern(options, Infinity);
      for (const pieceLength of [1, 2, 3]) {
        const pieced = compileLiteralLinePattern(options, pieceLength);
        expect(allMatches(pieced, line), JSON.stringify({ options, line, pieceLength })).toEqual(allMatches(whole, line));
        // Sound: a line that holds a match is never ruled out.
        if (allMatches(whole, line).length > 0) expect(pieced.mayMatch?.(line) ?? true).toBe(true);
      }
    }
  });

  it('compiles and finds a literal of 100 000 characters, case-insensitively and as a whole word', () => {
    const query = 'Ab.(k|é'.repeat(100_000 / 7);
    const line = `x ${query.toUpperCase()} y`;
    for (const options of [{}, { caseSensitive: true }, { wholeWord: true }]) {
      const pattern = compileLiteralLinePattern({ query, ...options });
      const expected = 'caseSensitive' in options ? null : { start: 2, end: 2 + query.length };
      expect(pattern.next(line, 0)).toEqual(expected);
      expect(pattern.next(line, 3)).toBeNull();
    }
  });
});
