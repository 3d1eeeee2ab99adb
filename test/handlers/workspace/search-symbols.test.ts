/**
 * `def`, `refs`, `sym`, `ast` and `context` (docs/intentic-search.md#modes), with expectations written
 * from the spec. The parsers are the daemon's own (tree-sitter WASM, in process), over both file backends.
 *
 * Choices the spec leaves open, assumed here :
 * - `def`/`refs`/`ast` group scores are 1/(rank+1), like `files` and `find`;
 * - `refs` hits carry spans (they are whole-word text matches) and one tag, the first kind that fits;
 * - `context` is the innermost enclosing symbol other than the one the line defines;
 * - `sym`'s signature is the definition's first line, trimmed (`export` kept, as `def` keeps it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hit } from '../../../core/search/answer.ts';
import { TreeSitterParsers } from '../../../adapters/search/tree-sitter-parsers.ts';
import { BACKENDS } from '../../support/backends.ts';

const parsers = new TreeSitterParsers();
import { FRESH, openSearch, pathsOf, searchPair, type SearchFixture, type SearchPair } from './search-fixture.ts';

const WIDGETS_TS = [
  "import { helper } from './helper';", // 1
  '', // 2
  'interface Widget {', // 3 (as the spec's own example: `type   interface Widget {`)
  '  name: string;', // 4
  '}', // 5
  '', // 6
  "export const defaultWidgets: Widget[] = [{ name: 'a' }];", // 7
  '', // 8
  'export function renderWidget(widget: Widget): string {', // 9
  '  const label = helper(widget.name);', // 10
  '  return label;', // 11
  '}', // 12
  '', // 13
  'class WidgetStore {', // 14
  '  add(widget: Widget) {', // 15
  '    this.items.push(widget);', // 16
  '  }', // 17
  '}', // 18
].join('\n') + '\n';

const SEED = {
  'src/widgets.ts': WIDGETS_TS,
  'src/helper.ts': 'export function helper(name: string): string {\n  return name.toUpperCase();\n}\n',
  'lib/legacy.js': 'function renderWidget() {\n  return null;\n}\n',
  'src/widgets.test.ts': "const makeWidget = () => ({ name: 'x' });\nfunction checkWidget() {}\n",
  'src/App.vue': '<template><div/></template>\n<script lang="ts">\nexport function mountApp() {}\n</script>\n',
  'py/tool.py': 'def render_widget():\n    pass\n',
  'go/main.go': 'package main\n\nfunc RenderWidget() {}\n',
};

const def = (line: number, text: string): Hit => ({ line, text, spans: [], tags: [{ kind: 'def' }] });

describe.each(BACKENDS)('GET /workspace/search symbol modes (%s)', (backend) => {
  let ws: SearchFixture;
  beforeAll(async () => {
    ws = await openSearch(backend, SEED, { search: { parsers } });
  });
  afterAll(() => ws.cleanup());

  describe('mode=def', () => {
    it('finds definitions named exactly the query, exported first, then path and line', async () => {
      expect(await ws.search({ query: 'renderWidget', mode: 'def' })).toEqual({
        mode: 'def',
        total: 2,
        files: 2,
        shown: 2,
        groups: [
          { path: 'src/widgets.ts', score: 1, hits: [def(9, 'export function renderWidget(widget: Widget): string {')] },
          { path: 'lib/legacy.js', score: 0.5, hits: [def(1, 'function renderWidget() {')] },
        ],
        freshness: FRESH,
        truncated: false,
      });
    });

    it('is case-sensitive', async () => {
      expect(pathsOf(await ws.search({ query: 'RenderWidget', mode: 'def' }))).toEqual(['go/main.go']);
    });

    it('a const shows its statement, export included', async () => {
      expect((await ws.search({ query: 'defaultWidgets', mode: 'def' })).groups).toEqual([
        { path: 'src/widgets.ts', score: 1, hits: [def(7, "export const defaultWidgets: Widget[] = [{ name: 'a' }];")] },
      ]);
    });

    it('parses Vue script blocks at file line numbers, Python and Go', async () => {
      expect((await ws.search({ query: 'mountApp', mode: 'def' })).groups).toEqual([
        { path: 'src/App.vue', score: 1, hits: [def(3, 'export function mountApp() {}')] },
      ]);
      expect((await ws.search({ query: 'render_widget', mode: 'def' })).groups).toEqual([
        { path: 'py/tool.py', score: 1, hits: [def(1, 'def render_widget():')] },
      ]);
      expect((await ws.search({ query: 'RenderWidget', mode: 'def' })).groups).toEqual([
        { path: 'go/main.go', score: 1, hits: [def(3, 'func RenderWidget() {}')] },
      ]);
    });

    it('without an exact name answers as sym, with the note', async () => {
      const answer = await ws.search({ query: 'renderWidgt', mode: 'def' });
      expect(answer.mode).toBe('def');
      expect(answer.note).toBe('no exact definition of "renderWidgt", showing fuzzy symbol matches');
      expect(answer.groups.flatMap((group) => group.hits.map((hit) => hit.text))).toContain('fn     export function renderWidget(widget: Widget): string {');
    });
  });

  describe('mode=refs', () => {
    it('the name as a whole word, case-insensitive, minus its definition lines, each line the first kind that fits', async () => {
      const ref = (line: number, text: string, kind: string, spans: [number, number][], context?: string): Hit => ({
        line,
        text,
        spans: spans.map(([start, end]) => ({ start, end })),
        tags: [{ kind: kind as Hit['tags'][number]['kind'] }],
        ...(context === undefined ? {} : { context }),
      });
      expect(await ws.search({ query: 'Widget', mode: 'refs' })).toEqual({
        mode: 'refs',
        total: 5,
        files: 1,
        shown: 5,
        groups: [
          {
            path: 'src/widgets.ts',
            score: 1,
            hits: [
              // Line 3 defines Widget: not a reference.
              ref(7, "export const defaultWidgets: Widget[] = [{ name: 'a' }];", 'type', [[29, 35]]),
              ref(9, 'export function renderWidget(widget: Widget): string {', 'type', [[29, 35], [37, 43]]),
              ref(10, '  const label = helper(widget.name);', 'text', [[23, 29]], 'renderWidget (fn)'),
              ref(15, '  add(widget: Widget) {', 'type', [[6, 12], [14, 20]], 'WidgetStore (class)'),
              ref(16, '    this.items.push(widget);', 'text', [[20, 26]], 'add (method)'),
            ],
          },
        ],
        freshness: FRESH,
        truncated: false,
      });
    });

    it('tells imports and calls apart', async () => {
      const answer = await ws.search({ query: 'helper', mode: 'refs' });
      const kinds = answer.groups.flatMap((group) => group.hits.map((hit) => [group.path, hit.line, hit.tags.map((tag) => tag.kind)]));
      expect(kinds).toEqual([
        ['src/widgets.ts', 1, ['import']],
        ['src/widgets.ts', 10, ['call']],
      ]);
    });
  });

  describe('mode=sym', () => {
    it('fuzzy over symbol names; hit text is the kind padded to 6, a space, the signature', async () => {
      const answer = await ws.search({ query: 'Widget', mode: 'sym' });
      const texts = answer.groups.flatMap((group) => group.hits.map((hit) => `${group.path}:${hit.line} ${hit.text}`));
      expect(texts).toEqual(
        expect.arrayContaining([
          'src/widgets.ts:3 type   interface Widget {',
          'src/widgets.ts:14 class  class WidgetStore {',
          'src/widgets.ts:9 fn     export function renderWidget(widget: Widget): string {',
          "src/widgets.ts:7 const  export const defaultWidgets: Widget[] = [{ name: 'a' }];",
          "src/widgets.test.ts:1 test   const makeWidget = () => ({ name: 'x' });",
          'src/widgets.test.ts:2 test   function checkWidget() {}',
        ]),
      );
      // Every hit is a definition (tag `def`) whose name matched fuzzily (`fuzzy`, with its score), in the
      // answer's tag order (docs/intentic.md): def, path, fuzzy, …
      for (const hit of answer.groups.flatMap((group) => group.hits)) {
        expect(hit.spans).toEqual([]);
        expect(hit.tags.map((tag) => tag.kind)).toEqual(['def', 'fuzzy']);
        expect(hit.tags[0]).toEqual({ kind: 'def' });
      }
      // `Widget` itself scores 1: 0.75 + 0.2 + 5/6, capped.
      expect(answer.groups[0]!.hits.find((hit) => hit.line === 3)!.tags).toEqual([{ kind: 'def' }, { kind: 'fuzzy', score: 1 }]);
      // `Widget` (0.75 + 0.2 + 5/6) is the best-scoring name.
      expect(answer.groups[0]!.path).toBe('src/widgets.ts');
    });

    it('a query with * ? [ is a case-sensitive glob over names', async () => {
      const answer = await ws.search({ query: 'Widget*', mode: 'sym' });
      const names = answer.groups.flatMap((group) => group.hits.map((hit) => hit.text)).sort();
      expect(names).toEqual(['class  class WidgetStore {', 'type   interface Widget {']);
      for (const hit of answer.groups.flatMap((group) => group.hits)) expect(hit.tags).toEqual([{ kind: 'def' }]);
    });
  });

  describe('mode=ast', () => {
    it('matches a syntax pattern in each file’s own language ($X one node), tag text', async () => {
      expect(await ws.search({ query: 'helper($X)', mode: 'ast' })).toEqual({
        mode: 'ast',
        total: 1,
        files: 1,
        shown: 1,
        groups: [
          {
            path: 'src/widgets.ts',
            score: 1,
            // No `context`: docs/intentic-search.md gives it to find, q and refs hits.
            hits: [{ line: 10, text: '  const label = helper(widget.name);', spans: [{ start: 16, end: 35 }], tags: [{ kind: 'text' }] }],
          },
        ],
        freshness: FRESH,
        truncated: false,
      });
    });
  });

  describe('context and q with definitions', () => {
    it('find hits inside a symbol carry it as `name (kind)`', async () => {
      const answer = await ws.search({ query: 'items.push', mode: 'find', literal: 'true' });
      expect(answer.groups[0]!.hits[0]!.context).toBe('add (method)');
    });

    it('q on an identifier puts the defining file first (×1.5) and tags its definition line def', async () => {
      const answer = await ws.search({ query: 'renderWidget' });
      expect(answer.groups[0]!.path).toBe('src/widgets.ts');
      const line9 = answer.groups[0]!.hits.find((hit) => hit.line === 9)!;
      expect(line9.tags[0]).toEqual({ kind: 'def' });
    });
  });
});

/**
 * What is searched (docs/intentic.md): text matching skips a file holding a NUL byte, but a source file with a NUL
 * is still parsed for symbols. Over the index and over the scan (searchPair), with the daemon's parsers and
 * without (line heuristics).
 */
const PACKED_TS = 'export function unpackFrame(bytes: Uint8Array) {\n  return bytes.indexOf(0) === "\0".charCodeAt(0);\n}\n';

describe.each(BACKENDS)('a source file holding a NUL byte (%s)', (backend) => {
  let ws: SearchFixture;
  let pair: SearchPair;
  beforeAll(async () => {
    const seed = { 'src/packed.ts': PACKED_TS, 'src/use.ts': "import { unpackFrame } from './packed';\n" };
    [ws, pair] = await Promise.all([openSearch(backend, seed, { search: { parsers } }), searchPair(backend, seed)]);
  });
  afterAll(() => Promise.all([ws.cleanup(), pair.cleanup()]));

  it('def finds its definitions, parsed or by the heuristics, from the index and from the scan', async () => {
    const signature = 'export function unpackFrame(bytes: Uint8Array) {';
    expect((await ws.search({ query: 'unpackFrame', mode: 'def' })).groups).toEqual([
      { path: 'src/packed.ts', score: 1, hits: [def(1, signature)] },
    ]);
    expect((await pair.both({ query: 'unpackFrame', mode: 'def' })).groups).toEqual([
      { path: 'src/packed.ts', score: 1, hits: [{ line: 1, text: signature, spans: [], tags: [{ kind: 'def' }, { kind: 'heuristic' }] }] },
    ]);
  });

  it('sym lists them', async () => {
    expect((await ws.search({ query: 'unpackFrame', mode: 'sym' })).groups).toEqual([
      { path: 'src/packed.ts', score: 1, hits: [{ line: 1, text: 'fn     export function unpackFrame(bytes: Uint8Array) {', spans: [], tags: [{ kind: 'def' }, { kind: 'fuzzy', score: 1 }] }] },
    ]);
  });

  it('text matching still skips it: find, refs and the text of q', async () => {
    expect(pathsOf(await pair.both({ query: 'unpackFrame', mode: 'find' }))).toEqual(['src/use.ts']);
    expect(pathsOf(await pair.both({ query: 'charCodeAt', mode: 'find' }))).toEqual([]);
    expect(pathsOf(await ws.search({ query: 'unpackFrame', mode: 'refs' }))).toEqual(['src/use.ts']);
    // q: the definition (tag def) from the parse, no text hit from the file.
    const q = await ws.search({ query: 'unpackFrame' });
    const packed = q.groups.find((group) => group.path === 'src/packed.ts')!;
    expect(packed.hits.map((hit) => [hit.line, hit.tags.map((tag) => tag.kind)])).toEqual([[1, ['def']]]);
  });
});

/**
 * `context` inside a variable's initializer (docs/intentic.md: `defaultWidgets (const)`): module-level
 * `const`/`let`/`var` in TypeScript, assignments in Python, `var` in Go, `static` in Rust; parsed, and (for the
 * languages the line heuristics read) without a parser, as on the memory backend and Workers.
 */
const TABLES = {
  'src/tables.ts': [
    'export const defaultWidgets = [', // 1
    "  makeWidget('a'),", // 2
    '];', // 3
    'let counters = {', // 4
    "  total: makeWidget('b'),", // 5
    '};', // 6
    'const first = [', // 7
    "  makeWidget('c'),", // 8
    '], second = [', // 9
    "  makeWidget('d'),", // 10
    '];', // 11
    'function build() {', // 12
    "  return makeWidget('e');", // 13
    '}', // 14
  ].join('\n') + '\n',
  'src/plain.js': "var registry = {\n  main: makeWidget('f'),\n};\n",
  'py/tables.py': 'WIDGETS = [\n    makeWidget(1),\n]\n',
  'go/tables.go': 'package tables\n\nvar widgets = []int{\n\tmakeWidget(1),\n}\n',
  'rs/tables.rs': 'static WIDGETS: [i32; 1] = [\n    makeWidget(1),\n];\n',
};

const contexts = (answer: { groups: { path: string; hits: Hit[] }[] }) =>
  answer.groups.flatMap((group) => group.hits.map((hit) => `${group.path}:${hit.line} ${hit.context ?? '-'}`)).sort();

describe.each(BACKENDS)('context inside a variable initializer (%s)', (backend) => {
  let parsed: SearchFixture;
  let heuristic: SearchFixture;
  beforeAll(async () => {
    [parsed, heuristic] = await Promise.all([openSearch(backend, TABLES, { search: { parsers } }), openSearch(backend, TABLES)]);
  });
  afterAll(() => Promise.all([parsed.cleanup(), heuristic.cleanup()]));

  it('names the variable whose initializer holds the hit, parsed (refs, find and q alike)', async () => {
    const expected = [
      'go/tables.go:4 widgets (const)',
      'py/tables.py:2 WIDGETS (const)',
      'rs/tables.rs:2 WIDGETS (const)',
      'src/plain.js:2 registry (const)',
      'src/tables.ts:10 second (const)',
      'src/tables.ts:13 build (fn)',
      'src/tables.ts:2 defaultWidgets (const)',
      'src/tables.ts:5 counters (const)',
      'src/tables.ts:8 first (const)',
    ];
    expect(contexts(await parsed.search({ query: 'makeWidget', mode: 'refs' }))).toEqual(expected);
    expect(contexts(await parsed.search({ query: 'makeWidget(', mode: 'find', literal: 'true' }))).toEqual(expected);
    expect(contexts(await parsed.search({ query: 'makeWidget' }))).toEqual(expected);
  });

  it('names it without a parser too, where the line heuristics see the declaration', async () => {
    expect(contexts(await heuristic.search({ query: 'makeWidget', mode: 'refs' }))).toEqual([
      'go/tables.go:4 widgets (const)',
      'py/tables.py:2 WIDGETS (const)',
      'rs/tables.rs:2 WIDGETS (const)',
      'src/plain.js:2 registry (const)',
      // `second` is declared mid-line (`], second = [`): no line pattern sees it.
      'src/tables.ts:10 -',
      'src/tables.ts:13 build (fn)',
      'src/tables.ts:2 defaultWidgets (const)',
      'src/tables.ts:5 counters (const)',
      'src/tables.ts:8 first (const)',
    ]);
  });
});
