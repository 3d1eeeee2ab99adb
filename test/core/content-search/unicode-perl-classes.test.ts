import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { unicodePerlClasses } from '../../../core/content-search/unicode-perl-classes.ts';
import { compileSearchPattern } from '../../../core/content-search/search-pattern.ts';

const matches = (query: string, line: string) => {
  const pattern = compileSearchPattern({ query, regex: true, caseSensitive: true });
  const found: string[] = [];
  for (let from = 0, match = pattern.next(line, 0); match !== null && from <= line.length; match = pattern.next(line, from)) {
    found.push(line.slice(match.start, match.end));
    from = Math.max(match.end, match.start + 1);
  }
  return found;
};

describe('Rust\'s Unicode \\w \\d \\s on RE2', () => {
  it('matches what Rust regex (ripgrep) matches', () => {
    expect(matches(String.raw`\w+`, 'über naïve_2 ok')).toEqual(['über', 'naïve_2', 'ok']);
    expect(matches(String.raw`\d here`, '٣ here')).toEqual(['٣ here']);
    expect(matches(String.raw`nbsp\shere`, 'nbsp\u00a0here')).toEqual(['nbsp\u00a0here']);
    expect(matches(String.raw`[\w-]+`, 'ça-va!')).toEqual(['ça-va']);
    expect(matches(String.raw`\W`, 'é!')).toEqual(['!']);
    expect(matches(String.raw`\D+`, 'ab٣')).toEqual(['ab']);
  });

  it('leaves escapes, \\Q…\\E, classes with ] first and [:name:] alone', () => {
    expect(unicodePerlClasses(String.raw`a\\w`)).toBe(String.raw`a\\w`);
    expect(unicodePerlClasses(String.raw`\Q\w\E\w`)).toBe(String.raw`\Q\w\E[\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc}\x{200C}\x{200D}]`);
    expect(unicodePerlClasses(String.raw`[]\d]`)).toBe(String.raw`[]\p{Nd}]`);
    expect(unicodePerlClasses('[[:alpha:]]x')).toBe('[[:alpha:]]x');
    expect(unicodePerlClasses('plain')).toBe('plain');
    for (const pattern of [String.raw`\w`, String.raw`[^\s\d]`, String.raw`\S+\W`, String.raw`[\w.-]+@\w+`]) {
      expect(() => RE2JS.compile(unicodePerlClasses(pattern))).not.toThrow();
    }
  });

  it('reports a bad pattern in the user\'s own words', () => {
    expect(() => compileSearchPattern({ query: String.raw`(\w`, regex: true })).toThrow('Invalid search: missing closing ): `(\\w`');
  });
});
