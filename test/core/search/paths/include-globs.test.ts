import { describe, expect, it } from 'vitest';
import { includeFilter, includeGlobs } from '../../../../core/search/paths/include-globs.ts';

/** The paths of `paths` that `include` lets through. */
function searched(include: string | undefined, paths: readonly string[]): string[] | 'all' {
  const filter = includeFilter(include);
  return filter ? paths.filter(filter) : 'all';
}

describe('includeGlobs: every row of docs/intentic-search.md\'s table', () => {
  it.each([
    ['docs', ['**/docs', '**/docs/**'], []],
    ['docs/', ['**/docs', '**/docs/**'], []],
    ['src/db', ['**/src/db', '**/src/db/**'], []],
    ['./src/db', ['./src/db', './src/db/**'], []],
    ['/src/db', ['./src/db', './src/db/**'], []],
    ['.ts', ['**/*.ts', '**/*.ts/**'], []],
    ['package.json', ['**/package.json', '**/package.json/**'], []],
    ['*.test.ts', ['**/*.test.ts', '**/*.test.ts/**'], []],
    ['src/**/*.vue', ['**/src/**/*.vue', '**/src/**/*.vue/**'], []],
    ['*.{ts,py}', ['**/*.{ts,py}', '**/*.{ts,py}/**'], []],
    ['f[a,b].ts', ['**/f[a,b].ts', '**/f[a,b].ts/**'], []],
    ['docs, *.md', ['**/docs', '**/docs/**', '**/*.md', '**/*.md/**'], []],
    ['src, !*.test.ts', ['**/src', '**/src/**'], ['**/*.test.ts', '**/*.test.ts/**']],
    ['!', [], []],
    [' , ', [], []],
  ])('%j', (include, inclusions, exclusions) => {
    expect(includeGlobs(include)).toEqual({ include: inclusions, exclude: exclusions });
  });

  it('absent, "!", " , " and "" filter nothing', () => {
    expect(includeGlobs(undefined)).toEqual({ include: [], exclude: [] });
    for (const include of [undefined, '!', ' , ', '', ',,', '/', './']) expect(includeFilter(include)).toBeUndefined();
  });

  it('trims parts and strips every trailing slash, also after "!"', () => {
    expect(includeGlobs('  docs//  ,  ! build/ ')).toEqual({
      include: ['**/docs', '**/docs/**'],
      exclude: ['**/build', '**/build/**'],
    });
  });

  it('does not split inside braces or brackets, however nested', () => {
    expect(includeGlobs('{a,{b,c}}/x, [,]y')).toEqual({
      include: ['**/{a,{b,c}}/x', '**/{a,{b,c}}/x/**', '**/[,]y', '**/[,]y/**'],
      exclude: [],
    });
  });
});

describe('includeFilter: what is searched', () => {
  const paths = [
    'docs/a.md',
    'src/docs/b.md',
    'mydocs/c.md',
    'docs',
    'src/db/schema.sql',
    'lib/src/db/x.ts',
    'src/dbx/y.ts',
    'src/app.ts',
    'src/app.test.ts',
    'README.md',
    'a.py',
    'fa.ts',
    'f,.ts',
    'fc.ts',
    'src/components/deep/W.vue',
    'src/W.vue',
    'package.json',
    'web/package.json',
    '.env',
    '.github/ci.yml',
  ];

  it.each([
    ['docs', ['docs/a.md', 'src/docs/b.md', 'docs']],
    ['src/db', ['src/db/schema.sql', 'lib/src/db/x.ts']],
    ['./src/db', ['src/db/schema.sql']],
    ['/src/db/', ['src/db/schema.sql']],
    ['.ts', ['lib/src/db/x.ts', 'src/dbx/y.ts', 'src/app.ts', 'src/app.test.ts', 'fa.ts', 'f,.ts', 'fc.ts']],
    ['package.json', ['package.json', 'web/package.json']],
    ['*.test.ts', ['src/app.test.ts']],
    ['src/**/*.vue', ['src/components/deep/W.vue', 'src/W.vue']],
    ['*.{ts,py}', ['lib/src/db/x.ts', 'src/dbx/y.ts', 'src/app.ts', 'src/app.test.ts', 'a.py', 'fa.ts', 'f,.ts', 'fc.ts']],
    ['f[a,b].ts', ['fa.ts', 'f,.ts']],
    ['docs, *.md', ['docs/a.md', 'src/docs/b.md', 'mydocs/c.md', 'docs', 'README.md']],
    ['src, !*.test.ts', ['src/docs/b.md', 'src/db/schema.sql', 'lib/src/db/x.ts', 'src/dbx/y.ts', 'src/app.ts', 'src/components/deep/W.vue', 'src/W.vue']],
    ['!*.md, !.ts, !*.vue, !*.sql, !*.json, !*.yml, !.py', ['docs', '.env']],
    ['.env', ['.env']],
    ['.github', ['.github/ci.yml']],
  ])('%j', (include, expected) => {
    expect(searched(include, paths)).toEqual(expected);
  });

  it('keeps the glob semantics: one-segment * and ?, ** as whole segments, case-sensitive', () => {
    expect(searched('api', ['api', 'x/api', 'x/napi', 'api/y', 'apix/z'])).toEqual(['api', 'x/api', 'api/y']);
    expect(searched('./src/**', ['src/a.ts', 'srcish/a.ts', 'src/a/b/c.ts'])).toEqual(['src/a.ts', 'src/a/b/c.ts']);
    expect(searched('Widget*', ['widget.ts', 'Widget.ts', 'ui/WidgetList.vue', 'ui/MyWidget.ts'])).toEqual([
      'Widget.ts',
      'ui/WidgetList.vue',
    ]);
    expect(searched('a?c', ['abc', 'a/c', 'x/aXc', 'abbc'])).toEqual(['abc', 'x/aXc']);
    expect(searched('a*c', ['ac', 'abbc', 'a/c', 'ab/c'])).toEqual(['ac', 'abbc']);
    expect(searched('./a/**/b', ['a/b', 'a/x/y/b', 'a/xb', 'c/a/b'])).toEqual(['a/b', 'a/x/y/b']);
    expect(searched('[!a]b', ['ab', 'cb', 'b'])).toEqual(['cb']);
    expect(searched('*.TS', ['a.ts', 'a.TS'])).toEqual(['a.TS']);
  });

  it('matches dot files and folders like any other', () => {
    expect(searched('*.yml', ['.github/ci.yml', '.hidden.yml', 'a/.b/c.yml'])).toEqual(['.github/ci.yml', '.hidden.yml', 'a/.b/c.yml']);
  });

  it('reads ( ) | + @ and an unclosed { or [ as themselves (no extglobs, no regex groups)', () => {
    const names = ['notes (draft).md', 'a|b', '+(x)', '@(y)', 'a{b', 'c[d', 'x', 'y'];
    expect(searched('notes (draft).md', names)).toEqual(['notes (draft).md']);
    expect(searched('a|b', names)).toEqual(['a|b']);
    expect(searched('+(x)', names)).toEqual(['+(x)']);
    expect(searched('@(y)', names)).toEqual(['@(y)']);
    expect(searched('a{b', names)).toEqual(['a{b']);
    expect(searched('c[d', names)).toEqual(['c[d']);
  });
});
