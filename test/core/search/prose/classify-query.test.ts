import { describe, expect, it } from 'vitest';
import { classifyQuery, isPhrase, type QueryKind } from '../../../../core/search/prose/classify-query.ts';

describe('classifyQuery (first fit wins)', () => {
  it.each<[string, QueryKind]>([
    // path: no whitespace, has / * ?, no other regex character (dots, globs' [] and {} allowed)
    ['src/app.ts', 'path'],
    ['src/db', 'path'],
    ['./src/db/', 'path'],
    ['*.test.ts', 'path'],
    ['src/**/*.vue', 'path'],
    ['src/*.{ts,js}', 'path'],
    ['f[ab]/x.ts', 'path'],
    ['file?.md', 'path'],
    ['how?', 'path'],
    // a / * ? with a regex-only character is not a path
    ['src/(a|b)', 'regex'],
    ['a/b+', 'regex'],
    ['^src/', 'regex'],
    ['foo.*bar', 'regex'],
    ['src/a.*', 'regex'],
    ['a.?b', 'regex'],
    ['*.*', 'path'],
    ['src/.*rc', 'path'],
    ['src\\/x', 'regex'],
    // identifier
    ['getUserById', 'identifier'],
    ['HTTP_SERVER_PORT', 'identifier'],
    ['Widget.render', 'identifier'],
    ['Foo#bar', 'identifier'],
    ['$el', 'identifier'],
    ['_private', 'identifier'],
    ['a.b.c', 'identifier'],
    ['x1', 'identifier'],
    // not identifiers: a leading digit, a trailing or doubled separator, a hyphen, non-ASCII
    ['1abc', 'prose'],
    ['foo.', 'regex'],
    ['foo..bar', 'regex'],
    ['foo#', 'prose'],
    ['kebab-case', 'prose'],
    ['café', 'prose'],
    // regex: a regex character and RE2 compiles it
    ['foo(bar|baz)', 'regex'],
    ['\\bword\\b', 'regex'],
    ['[0-9]+', 'regex'],
    ['a{2,3}', 'regex'],
    ['^x', 'regex'],
    ['x$', 'identifier'], // `$` is an identifier character
    // RE2 refuses these (unbalanced, look-around, back-reference, dangling escape): prose
    ['(unclosed', 'prose'],
    ['a)b', 'prose'],
    ['(?=x)y', 'prose'],
    ['(a)\\1', 'prose'],
    ['a\\', 'prose'],
    ['+x', 'prose'],
    // whitespace anywhere: prose, even with path or regex cues
    ['how are irqs routed', 'prose'],
    ['src/app.ts ', 'prose'],
    ['foo\t.*', 'prose'],
    ['get User', 'prose'],
  ])('%j is %s', (query, kind) => {
    expect(classifyQuery(query)).toBe(kind);
  });
});

describe('isPhrase', () => {
  it.each<[string, boolean]>([
    ['how are irqs routed', true],
    ['how are irqs routed?', true],
    ['what is this?!', true],
    ['it works.', true],
    ['  two words  ', true],
    ['two\twords', true],
    ['word', false],
    ['word?', false],
    ['a?b c', false],
    ['foo | bar', false],
    ['call (x) now', false],
    ['use [x] here', false],
    ['a * b', false],
    ['a + b', false],
    ['^start here', false],
    ['end here$', false],
    ['back\\slash here', false],
    ['why? really', false],
    ['kebab-case words', true],
    ['emoji 😀 words', true],
    ['', false],
    ['?!.', false],
  ])('%j → %s', (query, phrase) => {
    expect(isPhrase(query)).toBe(phrase);
  });
});
