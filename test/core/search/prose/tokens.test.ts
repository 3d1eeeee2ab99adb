import { describe, expect, it } from 'vitest';
import { MAX_TERM_LENGTH, pathWords, queryTerms, tokenize } from '../../../../core/search/prose/tokens.ts';

describe('tokenize', () => {
  it.each([
    ['getUserById', ['get', 'user', 'by', 'id']],
    ['HTTP_SERVER_PORT', ['http', 'server', 'port']],
    ['parseJSON2', ['parse', 'json', '2']],
    ['HTTPServer', ['http', 'server']],
    ['XMLHttpRequest', ['xml', 'http', 'request']],
    ['irq_domain_alloc_irqs', ['irq', 'domain', 'alloc', 'irqs']],
    ['__init', ['init']],
    ['ext4_fill_super', ['ext', '4', 'fill', 'super']],
    ['0x1F', ['0', 'x', '1', 'f']],
    ['utf8ToUtf16', ['utf', '8', 'to', 'utf', '16']],
    ['iOS', ['i', 'os']],
    ['A', []], // a stop word alone
    ['x', ['x']],
    ['kebab-case-name', ['kebab', 'case', 'name']],
    ['a.b.c', ['b', 'c']],
    ['$el', ['el']],
    ['', []],
  ])('%j → %j', (text, terms) => {
    expect(tokenize(text)).toEqual(terms);
  });

  it('keeps letters of every script, lower-cased, marks with their letter', () => {
    expect(tokenize('Ärger über Straße')).toEqual(['ärger', 'über', 'straße']);
    expect(tokenize('Cafe\u0301Noir')).toEqual(['cafe\u0301', 'noir']);
    expect(tokenize('東京タワー 東京tower')).toEqual(['東京タワー', '東京tower']);
    expect(tokenize('ΑλφαΒήτα')).toEqual(['αλφα', 'βήτα']);
    expect(tokenize('число42')).toEqual(['число', '42']);
  });

  it('drops stop words standing alone, in prose and code alike, and keeps them inside identifiers', () => {
    expect(tokenize('The cost of an update to the index')).toEqual(['cost', 'update', 'index']);
    expect(tokenize('if (x) for (;;) do_it(); isOf')).toEqual(['x', 'do', 'it', 'is', 'of']);
    expect(tokenize('THE_END The')).toEqual(['the', 'end']);
  });

  it('separates words at every other character and keeps repeats in order', () => {
    expect(tokenize('foo.bar(baz, foo) // foo\tbar\nqux')).toEqual(['foo', 'bar', 'baz', 'foo', 'foo', 'bar', 'qux']);
  });

  it(`drops parts longer than ${MAX_TERM_LENGTH} code units`, () => {
    const long = 'a'.repeat(MAX_TERM_LENGTH + 1);
    expect(tokenize(`keep ${long} ${'b'.repeat(MAX_TERM_LENGTH)} x_${long.toUpperCase()}`)).toEqual(['keep', 'b'.repeat(MAX_TERM_LENGTH), 'x']);
  });
});

describe('queryTerms', () => {
  it('is the distinct terms in first-seen order', () => {
    expect(queryTerms('How are user ids mapped to the UserId type?')).toEqual(['user', 'ids', 'mapped', 'id', 'type']);
  });
});

describe('pathWords', () => {
  it.each([
    ['src/UserService.ts', ['src', 'user', 'service', 'ts']],
    ['kernel/irq/irqdomain.c', ['kernel', 'irq', 'irqdomain', 'c']],
    ['docs/how-to/the_guide.md', ['docs', 'how', 'to', 'the', 'guide', 'md']],
    ['fs/ext4/inode.c', ['fs', 'ext', '4', 'inode', 'c']],
  ])('%s → %j', (path, words) => {
    expect(pathWords(path)).toEqual(words);
  });
});
