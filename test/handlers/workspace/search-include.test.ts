/**
 * `include` (docs/intentic-search.md#include): every row of its table as an observable filter — which
 * files a `find` searches — on both backends, from the index and from the scan. Every file holds the same one
 * line, so an answer's paths (ties by path) are exactly the files searched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../../support/backends.ts';
import { pathsOf, searchPair, type SearchPair } from './search-fixture.ts';

const FILES = [
  'docs/a.md', 'x/docs/b.md', 'docs.md', 'mydocs/c.md',
  'src/db/q.ts', 'lib/src/db/r.ts', 'src/dbx/s.ts', 'src/db.ts',
  'weird.ts/inner.txt', 'notes.txt',
  'package.json', 'sub/package.json', 'package.json.bak',
  'a.test.ts', 'src/b.test.ts', 'a.test.tsx',
  'src/App.vue', 'src/components/W.vue', 'pkg/src/X.vue', 'App.vue',
  'y.py', 'fa.ts', 'fb.ts', 'f,.ts', 'fc.ts',
  'api/h.ts', 'x/api/i.ts', 'x/napi/j.ts', 'srcish/a.ts',
  'WidgetBox.ts', 'widget.ts',
];
const IGNORED = 'node_modules/m/index.js';
const SEED = Object.fromEntries([...FILES, IGNORED].map((path) => [path, 'inctoken\n']));

const sorted = (paths: string[]) => [...paths].sort();
const TS = FILES.filter((path) => path.endsWith('.ts'));
const SRC = ['src/db/q.ts', 'src/dbx/s.ts', 'src/db.ts', 'src/b.test.ts', 'src/App.vue', 'src/components/W.vue', 'lib/src/db/r.ts', 'pkg/src/X.vue'];

/** include → the files searched, from the table's rows and its glob notes. */
const ROWS: [string, string[]][] = [
  ['docs', ['docs/a.md', 'x/docs/b.md']],
  ['docs/', ['docs/a.md', 'x/docs/b.md']],
  ['src/db', ['src/db/q.ts', 'lib/src/db/r.ts']],
  ['./src/db', ['src/db/q.ts']],
  ['/src/db', ['src/db/q.ts']],
  ['./src/db/', ['src/db/q.ts']],
  // `**/*.ts/**` too: a folder named like a file.
  ['.ts', [...TS, 'weird.ts/inner.txt']],
  ['package.json', ['package.json', 'sub/package.json']],
  ['*.test.ts', ['a.test.ts', 'src/b.test.ts']],
  ['src/**/*.vue', ['src/App.vue', 'src/components/W.vue', 'pkg/src/X.vue']],
  ['*.{ts,py}', [...TS, 'y.py', 'weird.ts/inner.txt']],
  // One class, not split on its comma: `,` is one of its members.
  ['f[a,b].ts', ['fa.ts', 'fb.ts', 'f,.ts']],
  ['docs, *.md', ['docs/a.md', 'x/docs/b.md', 'docs.md', 'mydocs/c.md']],
  ['src, !*.test.ts', SRC.filter((path) => path !== 'src/b.test.ts')],
  ['!docs', FILES.filter((path) => !['docs/a.md', 'x/docs/b.md'].includes(path))],
  ['!', FILES],
  [' , ', FILES],
  ['', FILES],
  // The glob notes: case-sensitive, `**/api` not `x/napi`, `src/**` not `srcish/`.
  ['Widget*', ['WidgetBox.ts']],
  ['widget*', ['widget.ts']],
  ['api', ['api/h.ts', 'x/api/i.ts']],
  ['src/**', SRC],
  ['f?.ts', ['fa.ts', 'fb.ts', 'f,.ts', 'fc.ts']],
  ['*.ts', [...TS, 'weird.ts/inner.txt']],
  ['nothing-like-this', []],
];

describe.each(BACKENDS)('GET /workspace/search include (%s)', (backend) => {
  let pair: SearchPair;
  beforeAll(async () => {
    pair = await searchPair(backend, SEED);
  });
  afterAll(() => pair.cleanup());

  it('without include every file but the ignored is searched', async () => {
    expect(pathsOf(await pair.both({ query: 'inctoken', mode: 'find' }))).toEqual(sorted(FILES));
  });

  it.each(ROWS)('include=%j', async (include, searched) => {
    const answer = await pair.both({ query: 'inctoken', mode: 'find', include });
    expect(pathsOf(answer)).toEqual(sorted(searched));
    expect(answer.total).toBe(searched.length);
    if (searched.length === 0) expect(answer.hint).toEqual(expect.any(String));
  });

  it('does not lift the ignore rules: node_modules only with includeIgnored', async () => {
    expect(pathsOf(await pair.both({ query: 'inctoken', mode: 'find', include: 'node_modules' }))).toEqual([]);
    expect(pathsOf(await pair.both({ query: 'inctoken', mode: 'find', include: 'node_modules', includeIgnored: 'true' }))).toEqual([IGNORED]);
  });

  it('filters files and q the same way', async () => {
    // Substring in the base name, 0.95 + 5/len: 11, 13 and 20 characters.
    expect(pathsOf(await pair.both({ query: 'vue', mode: 'files', include: 'src' }))).toEqual(['src/App.vue', 'pkg/src/X.vue', 'src/components/W.vue']);
    // q's prose stage (fed in the background) is scoped too: only the settled workspace is sure to have it.
    expect(pathsOf(await pair.fresh.search({ query: 'inctoken', mode: 'q', include: './src/db' }))).toEqual(['src/db/q.ts']);
    // (`!*.ts` is `**/*.ts/**` too: weird.ts/inner.txt goes.) The order is fusion's; the set is the point here.
    expect(sorted(pathsOf(await pair.fresh.search({ query: 'inctoken', include: '!*.ts, !*.vue, !docs' })))).toEqual(
      sorted(['docs.md', 'mydocs/c.md', 'notes.txt', 'package.json', 'sub/package.json', 'package.json.bak', 'a.test.tsx', 'y.py']),
    );
  });
});
