import { describe, expect, it } from 'vitest';
import { compileSearchPattern } from '../../../../core/content-search/search-pattern.ts';
import { compileFind, rewriteGrepEscapes, type FindQuery } from '../../../../core/search/text/find-query.ts';
import { seededRandom } from '../../text/generators.ts';

const encode = (text: string) => new TextEncoder().encode(text);
const TEXT = [{ kind: 'text' }];

function find(pattern: string, text: string | Uint8Array, options: Partial<FindQuery> = {}) {
  const compiled = compileFind({ pattern, literal: false, caseSensitive: false, word: false, ...options });
  return compiled.matchBytes(typeof text === 'string' ? encode(text) : text);
}

describe('compileFind: the dialect', () => {
  it('is a regex in RE2 syntax unless literal', () => {
    expect(find('foo(bar|baz)', 'x\nfoobaz and foobar\n')).toEqual({
      hits: [{ line: 2, text: 'foobaz and foobar', spans: [{ start: 0, end: 6 }, { start: 11, end: 17 }], tags: TEXT }],
      capped: false,
    });
    expect(find('a.c', 'abc')?.hits[0]?.spans).toEqual([{ start: 0, end: 3 }]);
    expect(find('a.c', 'abc', { literal: true })).toBeNull();
    expect(find('a.c', 'xa.c', { literal: true })?.hits[0]?.spans).toEqual([{ start: 1, end: 4 }]);
  });

  it('runs a pattern that does not compile as literal text, and says so', () => {
    const compiled = compileFind({ pattern: '(unclosed', literal: false, caseSensitive: false, word: false });
    expect(compiled.ranAsLiteral).toBe(true);
    expect(compiled.required).toEqual([['(unclosed']]);
    expect(compiled.matchBytes(encode('a (UNCLOSED b'))?.hits).toEqual([{ line: 1, text: 'a (UNCLOSED b', spans: [{ start: 2, end: 11 }], tags: TEXT }]);
    // Look-around and back-references are not Rust regex: literal too.
    expect(compileFind({ pattern: 'a(?=b)', literal: false, caseSensitive: false, word: false }).ranAsLiteral).toBe(true);
    expect(compileFind({ pattern: '(a)\\1', literal: false, caseSensitive: false, word: false }).ranAsLiteral).toBe(true);
    // A valid regex, or a literal query, never "ran as literal".
    expect(compileFind({ pattern: 'a+', literal: false, caseSensitive: false, word: false }).ranAsLiteral).toBe(false);
    expect(compileFind({ pattern: '(x', literal: true, caseSensitive: false, word: false }).ranAsLiteral).toBe(false);
  });

  it('is case-insensitive unless caseSensitive, with Unicode simple folding', () => {
    expect(find('foo', 'FoO')?.hits[0]?.spans).toEqual([{ start: 0, end: 3 }]);
    expect(find('foo', 'FoO', { caseSensitive: true })).toBeNull();
    expect(find('ÉTÉ', 'un été')?.hits[0]?.spans).toEqual([{ start: 3, end: 6 }]);
    // U+212A KELVIN SIGN folds with k: the byte prefilter must not miss it.
    expect(find('kernel', 'the \u212Aernel')?.hits[0]?.spans).toEqual([{ start: 4, end: 10 }]);
    expect(find('kernel', 'the \u212Aernel', { literal: true })?.hits[0]?.spans).toEqual([{ start: 4, end: 10 }]);
    expect(find('\u017Fpin', 'SPIN')?.hits[0]?.spans).toEqual([{ start: 0, end: 4 }]);
    // An inline (?i) in a case-sensitive query still matches, and `required` is then compared folded.
    const inline = compileFind({ pattern: '(?i)foo', literal: false, caseSensitive: true, word: false });
    expect(inline.caseSensitive).toBe(false);
    expect(inline.matchBytes(encode('FOO'))?.hits).toHaveLength(1);
  });

  it('matches whole words with word, a word character being a letter, mark, digit or _ in any script', () => {
    const line = 'foo foobar _foo éfoo foo2 (foo)';
    expect(find('foo', line, { word: true })?.hits[0]?.spans).toEqual([{ start: 0, end: 3 }, { start: 27, end: 30 }]);
    expect(find('fo+', line, { word: true })?.hits[0]?.spans).toEqual([{ start: 0, end: 3 }, { start: 27, end: 30 }]);
    expect(find('foo', line, { word: true, literal: true })?.hits[0]?.spans).toEqual([{ start: 0, end: 3 }, { start: 27, end: 30 }]);
  });
});

describe('compileFind: lines, spans and text', () => {
  it('gives spans as UTF-16 offsets (emoji count 2)', () => {
    const hit = find('foo', '😀 foo 😀 foö foo')!.hits[0]!;
    expect(hit.spans).toEqual([{ start: 3, end: 6 }, { start: 14, end: 17 }]);
    expect(hit.spans.map((span) => hit.text.slice(span.start, span.end))).toEqual(['foo', 'foo']);
    expect(find('ö.', 'é😀 foö😀!')?.hits[0]?.spans).toEqual([{ start: 6, end: 9 }]);
  });

  it('splits at \\n and drops a trailing \\r; `$` is the end of the line before it', () => {
    expect(find('foo$', 'a foo\r\nb foo \r\nfoo\r\n')?.hits).toEqual([
      { line: 1, text: 'a foo', spans: [{ start: 2, end: 5 }], tags: TEXT },
      { line: 3, text: 'foo', spans: [{ start: 0, end: 3 }], tags: TEXT },
    ]);
    expect(find('x', 'a\rx\n')?.hits).toEqual([{ line: 1, text: 'a\rx', spans: [{ start: 2, end: 3 }], tags: TEXT }]);
  });

  it('reads line 1 after a BOM (as ripgrep does) and decodes invalid UTF-8 as U+FFFD', () => {
    expect(find('foo', '\uFEFFfoo\nfoo')?.hits).toEqual([
      { line: 1, text: 'foo', spans: [{ start: 0, end: 3 }], tags: TEXT },
      { line: 2, text: 'foo', spans: [{ start: 0, end: 3 }], tags: TEXT },
    ]);
    expect(find('^foo', '\uFEFFfoo')?.hits).toEqual([{ line: 1, text: 'foo', spans: [{ start: 0, end: 3 }], tags: TEXT }]);
    // Only a leading one: a BOM further on is text.
    expect(find('foo', 'a\uFEFFfoo')?.hits).toEqual([{ line: 1, text: 'a\uFEFFfoo', spans: [{ start: 2, end: 5 }], tags: TEXT }]);
    const bytes = new Uint8Array([0x61, 0xff, 0x66, 0x6f, 0x6f, 0x0a]);
    expect(find('foo', bytes)?.hits).toEqual([{ line: 1, text: 'a\uFFFDfoo', spans: [{ start: 2, end: 5 }], tags: TEXT }]);
    expect(find('a.foo', bytes)?.hits[0]?.spans).toEqual([{ start: 0, end: 5 }]);
  });

  it('shows a line over 200 characters as the 200-character window from 40 before the first match', () => {
    const line = 'x'.repeat(300) + 'needle' + 'y'.repeat(150) + 'needle' + 'z'.repeat(100);
    const hit = find('needle', line)!.hits[0]!;
    expect(hit.text).toBe('x'.repeat(40) + 'needle' + 'y'.repeat(150) + 'need');
    expect(hit.text).toHaveLength(200);
    // The second match is cut by the window's end: dropped.
    expect(hit.spans).toEqual([{ start: 40, end: 46 }]);
    const near = find('needle', 'ab needle ' + 'q'.repeat(250) + ' needle')!.hits[0]!;
    expect(near.text).toBe('ab needle ' + 'q'.repeat(190));
    expect(near.spans).toEqual([{ start: 3, end: 9 }]);
    const both = find('n', 'x'.repeat(250) + 'n' + 'y'.repeat(100) + 'n')!.hits[0]!;
    expect(both.text).toBe('x'.repeat(40) + 'n' + 'y'.repeat(100) + 'n');
    expect(both.spans).toEqual([{ start: 40, end: 41 }, { start: 141, end: 142 }]);
    expect(find('n', 'x'.repeat(200) + 'n')!.hits[0]).toEqual({ line: 1, text: 'x'.repeat(40) + 'n', spans: [{ start: 40, end: 41 }], tags: TEXT });
    // Exactly 200: shown whole.
    expect(find('n', 'n' + 'x'.repeat(199))!.hits[0]!.text).toHaveLength(200);
  });

  it('keeps at most 50 matching lines, capped when the file has more', () => {
    const fifty = Array.from({ length: 50 }, (_, i) => `hit ${i}`).join('\n');
    expect(find('hit', fifty)).toMatchObject({ capped: false });
    expect(find('hit', fifty)!.hits).toHaveLength(50);
    const more = find('hit', `${fifty}\nnothing\nhit 50\nhit 51`)!;
    expect(more.capped).toBe(true);
    expect(more.hits).toHaveLength(50);
    expect(more.hits.at(-1)).toEqual({ line: 50, text: 'hit 49', spans: [{ start: 0, end: 3 }], tags: TEXT });
    // The same through the whole-file path (a pattern without required literals).
    const anything = find('\\w+', `${fifty}\nx`)!;
    expect([anything.capped, anything.hits.length]).toEqual([true, 50]);
  });

  it('has no hits for a binary file (a NUL byte anywhere)', () => {
    expect(find('foo', 'foo\nbar\0')).toBeNull();
    expect(find('\\w', 'foo\0')).toBeNull();
    expect(find('foo', 'bar baz')).toBeNull();
    expect(find('foo', '')).toBeNull();
  });

  it('with binary, matches a file holding a NUL too (the symbol lookup of def), prefiltered or not', () => {
    expect(find('foo', 'bar\0\nfoo', { binary: true })?.hits).toEqual([{ line: 2, text: 'foo', spans: [{ start: 0, end: 3 }], tags: TEXT }]);
    expect(find('\\w+', '\0\nfoo', { binary: true })?.hits.map((hit) => hit.line)).toEqual([2]);
  });

  it('never counts a zero-length match as a hit', () => {
    expect(find('^', 'abc\n\n')).toBeNull();
    expect(find('x*', 'abc')).toBeNull();
    expect(find('a*', 'baaa b')?.hits[0]?.spans).toEqual([{ start: 1, end: 4 }]);
    expect(find('\\b', 'a b')).toBeNull();
  });

  it('never throws on a literal too long for one JavaScript regex (70 000 characters), nor on one that ran as literal', () => {
    const long = 'Ab.(k|é'.repeat(10_000);
    const text = `first\nx ${long.toLowerCase()} y\n`;
    // The 200-character window cuts the match, so its span is dropped (docs/intentic.md).
    const hits = [{ line: 2, text: `x ${long.toLowerCase()} y`.slice(0, 200), spans: [], tags: TEXT }];
    expect(find(long, text, { literal: true })).toEqual({ hits, capped: false });
    expect(find(long, text, { literal: true, word: true })).toEqual({ hits, capped: false });
    expect(find(long, text, { literal: true, caseSensitive: true })).toBeNull();
    // `(` unbalanced: not a regex, so it runs as literal text, at its full length.
    const compiled = compileFind({ pattern: long, literal: false, caseSensitive: false, word: false });
    expect(compiled.ranAsLiteral).toBe(true);
    expect(compiled.matchBytes(encode(text))).toEqual({ hits, capped: false });
  });

  it('runs (a+)+$ over a 1 MB line in linear time', () => {
    const line = 'a'.repeat(1_000_000);
    // The one match runs past the window, so the window cuts it: no span is shown.
    expect(find('(a+)+$', line)).toEqual({ hits: [{ line: 1, text: 'a'.repeat(200), spans: [], tags: TEXT }], capped: false });
    expect(find('(a+)+$', `${line}!`)).toBeNull();
  });
});

describe('compileFind: required literals', () => {
  const required = (pattern: string, options: Partial<FindQuery> = {}) =>
    compileFind({ pattern, literal: false, caseSensitive: true, word: false, ...options }).required;

  it('extracts the literal text every match contains', () => {
    expect(required('irq_domain_alloc')).toEqual([['irq_domain_alloc']]);
    expect(required('foo(bar|baz)')).toEqual([['foobar', 'foobaz'], ['fooba']]);
    expect(required('spin_lock_irq(save)?\\(')).toEqual([['spin_lock_irq(', 'spin_lock_irqsave('], ['spin_lock_irq']]);
    expect(required('abc+de')).toEqual([['ab'], ['de'], ['c']]);
    expect(required('foo.*bar')).toEqual([['foo'], ['bar']]);
    expect(required('a{2}b')).toEqual([['a'], ['b']]);
    expect(required('(ab){1}c')).toEqual([['abc']]);
    expect(required('\\bEXPORT_SYMBOL(_GPL)?\\(')).toEqual([['EXPORT_SYMBOL(', 'EXPORT_SYMBOL_GPL('], ['EXPORT_SYMBOL']]);
    expect(required('a\\.b\\Q(x)\\E')).toEqual([['a.b(x)']]);
    expect(required('x[abc]y')).toEqual([['x'], ['y']]);
    expect(required('\\w+')).toEqual([]);
    expect(required('a*')).toEqual([]);
    expect(required('foo|\\d')).toEqual([]);
    expect(required('(?i)Foo')).toEqual([['Foo']]);
    expect(required('(unclosed')).toEqual([['(unclosed']]);
    expect(required('a(?=b)', { literal: true })).toEqual([['a(?=b)']]);
    // Strings never hold U+FFFD: invalid bytes decode to it, so it cannot be searched for as bytes.
    expect(required('ab\uFFFDcde', { literal: true })).toEqual([['cde']]);
  });

  it('is sound: a line without the literals never matches (random patterns and lines)', () => {
    const random = seededRandom(7);
    const atoms = ['a', 'b', 'ab', 'ba', 'K', 'k', '\u212A', 'é', 'É', '.', '[ab]', '\\w', '(a|b)', '(ab|ba)', '(?:a|bb)', 'x'];
    const suffixes = ['', '', '', '*', '+', '?', '{2}', '{1,2}'];
    const pieces = ['a', 'b', 'k', 'K', '\u212A', 'é', 'É', 'x', ' ', '_', 'ab', 'ba'];
    for (let round = 0; round < 250; round++) {
      let pattern = '';
      const count = 1 + Math.floor(random() * 4);
      for (let i = 0; i < count; i++) pattern += atoms[Math.floor(random() * atoms.length)]! + suffixes[Math.floor(random() * suffixes.length)]!;
      if (random() < 0.2) pattern = `${pattern}|${atoms[Math.floor(random() * atoms.length)]!}`;
      const query: FindQuery = { pattern, literal: random() < 0.2, caseSensitive: random() < 0.5, word: random() < 0.2 };
      const compiled = compileFind(query);
      const reference = compileSearchPattern({ query: pattern, caseSensitive: query.caseSensitive, wholeWord: query.word, regex: !query.literal && !compiled.ranAsLiteral });
      const fold = (text: string) => (compiled.caseSensitive ? text : text.replace(/\u212A/g, 'k').replace(/\u017F/g, 's').toLowerCase());
      for (let j = 0; j < 20; j++) {
        let line = '';
        const length = Math.floor(random() * 8);
        for (let i = 0; i < length; i++) line += pieces[Math.floor(random() * pieces.length)];
        const matches = referenceMatches(reference, line);
        const satisfied = compiled.required.every((clause) => clause.some((text) => fold(line).includes(fold(text))));
        if (!satisfied) expect({ pattern, line, matches }).toEqual({ pattern, line, matches: false });
        // And the bytes path agrees with a plain line-by-line match (line 1 is empty: it never matches).
        const hits = compiled.matchBytes(encode(`\n${line}\n`))?.hits.map((hit) => hit.line) ?? [];
        expect({ pattern, query, line, hits }).toEqual({ pattern, query, line, hits: matches ? [2] : [] });
      }
    }
  });
});

function referenceMatches(pattern: ReturnType<typeof compileSearchPattern>, line: string): boolean {
  for (let from = 0; from <= line.length; ) {
    const match = pattern.next(line, from);
    if (match === null) return false;
    if (match.end > match.start) return true;
    from = match.start + 1;
  }
  return false;
}

describe('compileFind: candidate lines of a file', () => {
  it('finds exactly the matching lines and their numbers, whichever lines hold only some of the literals', () => {
    const random = seededRandom(11);
    const patterns = ['ab.*ba', 'ab\\w+x', 'x(ab|ba)', 'k_x', 'ba', '(?i)AB x'];
    const pieces = ['ab', 'ba', 'x', 'k', '_', ' ', 'é', '\u212A', '\n', '\n', '\r\n'];
    for (let round = 0; round < 300; round++) {
      const pattern = patterns[round % patterns.length]!;
      let text = '';
      const length = Math.floor(random() * 40);
      for (let i = 0; i < length; i++) text += pieces[Math.floor(random() * pieces.length)];
      const query: FindQuery = { pattern, literal: false, caseSensitive: random() < 0.5, word: random() < 0.2 };
      const reference = compileSearchPattern({ query: pattern, caseSensitive: query.caseSensitive, wholeWord: query.word, regex: true });
      const expected = text.split('\n').flatMap((line, i) => (referenceMatches(reference, line.replace(/\r$/, '')) ? [i + 1] : []));
      const hits = compileFind(query).matchBytes(encode(text))?.hits.map((hit) => hit.line) ?? [];
      expect({ pattern, query, text, hits }).toEqual({ pattern, query, text, hits: expected });
    }
  });
});

describe('rewriteGrepEscapes', () => {
  it('drops the backslash of \\| \\+ \\? \\( \\) \\{ \\} and nothing else', () => {
    expect(rewriteGrepEscapes('foo\\|bar')).toBe('foo|bar');
    expect(rewriteGrepEscapes('a\\+\\?\\(b\\)\\{2\\}')).toBe('a+?(b){2}');
    expect(rewriteGrepEscapes('a\\.b\\d')).toBeUndefined();
    expect(rewriteGrepEscapes('plain')).toBeUndefined();
    // `\\|` is an escaped backslash then `|`: left alone.
    expect(rewriteGrepEscapes('a\\\\|b')).toBeUndefined();
    expect(rewriteGrepEscapes('a\\\\\\|b')).toBe('a\\\\|b');
  });
});
