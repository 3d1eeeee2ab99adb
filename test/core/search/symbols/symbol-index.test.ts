import { afterEach, describe, expect, it } from 'vitest';
import { TreeSitterParsers } from '../../../../adapters/search/tree-sitter-parsers.ts';
import type { ListedFile } from '../../../../core/search/file-list/listed-file.ts';
import { fileSymbols } from '../../../../core/search/symbols/file-symbols.ts';
import { SymbolIndex, type SymbolIndexOptions } from '../../../../core/search/symbols/symbol-index.ts';
import { BACKENDS, buildTree, type BuiltTree } from '../../../support/backends.ts';
import { fixtureSeed, listFiles } from './fixture-repo.ts';

const parsers = new TreeSitterParsers();

describe.each(BACKENDS)('SymbolIndex over the fixture repo (%s)', (backend) => {
  let tree: BuiltTree | undefined;
  afterEach(async () => {
    await tree?.cleanup();
    tree = undefined;
  });

  /** The fixture on this backend, an index over it, and a count of the files it parsed. */
  async function setup(overrides: Partial<SymbolIndexOptions> = {}) {
    tree = await buildTree(backend, await fixtureSeed());
    const built = tree;
    let files = await listFiles(built.fs, built.root);
    const parsed: string[] = [];
    const symbolsOf = fileSymbols(parsers);
    const index = new SymbolIndex({
      files: () => files,
      read: (path) => built.fs.read(`${built.root}/${path}`),
      symbolsOf: (path, text) => {
        parsed.push(path);
        return symbolsOf(path, text);
      },
      ...overrides,
    });
    const relist = async () => {
      files = await listFiles(built.fs, built.root);
    };
    const file = (path: string) => files.find((f) => f.path === path)!;
    return { index, parsed, built, relist, file };
  }

  it('builds in the background over the non-ignored source files, then reports ready', async () => {
    const { index, parsed } = await setup();
    expect(index.status()).toEqual({ state: 'building', progress: 0, files: 0, symbols: 0 });
    await index.start();
    expect(parsed.sort()).toEqual([
      'c/ring.c', 'c/ring.h', 'cpp/shapes.cpp', 'go/main.go', 'java/src/main/java/com/example/WidgetService.java',
      'py/inventory.py', 'rust/src/lib.rs', 'scripts/deploy.rb', 'src/app.tsx', 'src/components/WidgetCard.vue',
      'src/format.ts', 'src/legacy.js', 'src/widgets.ts', 'tests/widgets.spec.ts',
    ]);
    expect(index.status()).toEqual({ state: 'ready', progress: 1, files: 14, symbols: 72 });
  });

  it('definitions: exact and case-sensitive, exported first, then path, then line', async () => {
    const { index } = await setup();
    await index.start();
    const found = await index.definitions('get');
    expect(found.map(({ path, def }) => [path, def.line, def.kind, def.exported])).toEqual([
      ['rust/src/lib.rs', 10, 'method', true],
      ['rust/src/lib.rs', 24, 'method', true],
      ['src/legacy.js', 13, 'method', false],
    ]);
    expect((await index.definitions('area')).map(({ path, def }) => `${path}:${def.line}`)).toEqual([
      'cpp/shapes.cpp:9', 'cpp/shapes.cpp:15', 'cpp/shapes.cpp:21',
    ]);
    expect(await index.definitions('renderWidget')).toEqual([{
      path: 'src/widgets.ts',
      def: {
        name: 'renderWidget', kind: 'fn', line: 23, endLine: 27,
        signature: 'export function renderWidget(widget: Widget): string {', exported: true, heuristic: false,
      },
    }]);
    expect(await index.definitions('renderwidget')).toEqual([]);
    expect(await index.definitions('Deployer')).toEqual([{
      path: 'scripts/deploy.rb',
      def: { name: 'Deployer', kind: 'class', line: 2, endLine: 10, signature: 'class Deployer', exported: true, heuristic: true },
    }]);
  });

  it('definitions before the pass: only the candidates given are parsed, and cached', async () => {
    const { index, parsed, file } = await setup();
    const candidates = [file('src/widgets.ts'), file('tests/widgets.spec.ts'), file('docs/guide.md')];
    expect((await index.definitions('makeWidget', candidates)).map(({ path, def }) => `${path}:${def.line}`)).toEqual([
      'src/widgets.ts:29',
    ]);
    expect(parsed).toEqual(['src/widgets.ts', 'tests/widgets.spec.ts']);
    // Without candidates while building, only what is cached answers.
    expect((await index.definitions('registryWith')).map(({ path }) => path)).toEqual(['tests/widgets.spec.ts']);
    expect(await index.definitions('restock')).toEqual([]);
    expect(parsed).toHaveLength(2);
    await index.start();
    expect(parsed.filter((path) => path === 'src/widgets.ts')).toHaveLength(1);
  });

  it('an ignored file is searched only as a candidate', async () => {
    const { index, file } = await setup();
    await index.start();
    expect(await index.definitions('leftPad')).toEqual([]);
    expect(await index.definitions('renderWidget', [file('dist/bundle.js')])).toEqual([{
      path: 'dist/bundle.js',
      def: {
        name: 'renderWidget', kind: 'fn', line: 1, endLine: 1,
        signature: 'function renderWidget(w){console.log("render",w.id);return"<"+w.label+">"}', exported: false,
        heuristic: false,
      },
    }]);
  });

  it('a changed file (new version) is parsed again; a new file is found once the index is ready; a deleted one is gone', async () => {
    const { index, built, relist, parsed } = await setup();
    await index.start();
    await built.fs.write(`${built.root}/src/format.ts`, 'export function formatTitle(t: string) {\n  return t;\n}\n');
    await built.fs.write(`${built.root}/src/extra.ts`, '\n\nexport const formatLabel = (s: string) => s;\n');
    await built.fs.remove(`${built.root}/src/widgets.ts`);
    await relist();
    parsed.length = 0;
    expect((await index.definitions('formatLabel')).map(({ path, def }) => `${path}:${def.line}:${def.kind}`)).toEqual([
      'src/extra.ts:3:fn',
    ]);
    expect((await index.definitions('formatTitle')).map(({ path }) => path)).toEqual(['src/format.ts']);
    expect(await index.definitions('renderWidget')).toEqual([]);
    expect(parsed.sort()).toEqual(['src/extra.ts', 'src/format.ts']);
  });

  it('a file deleted between listing and reading has no symbols (no error)', async () => {
    const { index, built, file } = await setup();
    const stale = file('src/widgets.ts');
    await built.fs.remove(`${built.root}/src/widgets.ts`);
    expect(await index.definitions('renderWidget', [stale])).toEqual([]);
    expect(await index.enclosing(stale, 25)).toBeUndefined();
  });

  it('enclosing: the innermost symbol holding the line, for `context`', async () => {
    const { index, file } = await setup();
    const widgets = file('src/widgets.ts');
    const context = async (path: string | ListedFile, line: number) => {
      const def = await index.enclosing(path, line);
      return def && `${def.name} (${def.kind})`;
    };
    expect(await context(widgets, 17)).toBe('defaultWidgets (const)');
    expect(await context(widgets, 25)).toBe('renderWidget (fn)');
    expect(await context(widgets, 40)).toBe('register (method)');
    expect(await context(widgets, 36)).toBe('WidgetRegistry (class)');
    expect(await context(widgets, 35)).toBe('WidgetRegistry (class)');
    expect(await context(widgets, 20)).toBeUndefined();
    expect(await context('src/components/WidgetCard.vue', 16)).toBe('select (fn)');
    expect(await context('src/components/WidgetCard.vue', 3)).toBeUndefined();
    expect(await context('py/inventory.py', 9)).toBe('Item (class)');
    expect(await context('go/main.go', 26)).toBe('main (fn)');
    expect(await context('java/src/main/java/com/example/WidgetService.java', 17)).toBe('toString (method)');
    expect(await context('scripts/deploy.rb', 8)).toBe('upload (method)');
    expect(await context('docs/guide.md', 3)).toBeUndefined();
    expect(await context('no/such/file.ts', 1)).toBeUndefined();
  });

  it('symbols: every file with symbols, for fuzzy and glob matching', async () => {
    const { index } = await setup();
    await index.start();
    const names: string[] = [];
    for await (const { path, defs } of index.symbols()) {
      if (path.startsWith('src/')) names.push(...defs.map((def) => `${path}#${def.name}`));
    }
    expect(names).toEqual([
      'src/app.tsx#App',
      'src/components/WidgetCard.vue#props', 'src/components/WidgetCard.vue#title', 'src/components/WidgetCard.vue#select',
      'src/format.ts#formatLabel', 'src/format.ts#SEPARATOR',
      'src/legacy.js#path', 'src/legacy.js#loadConfig', 'src/legacy.js#ConfigCache', 'src/legacy.js#constructor',
      'src/legacy.js#get', 'src/legacy.js#cache',
      'src/widgets.ts#Widget', 'src/widgets.ts#WidgetId', 'src/widgets.ts#WidgetKind', 'src/widgets.ts#defaultWidgets',
      'src/widgets.ts#MAX_SIZE', 'src/widgets.ts#renderWidget', 'src/widgets.ts#makeWidget', 'src/widgets.ts#clampSize',
      'src/widgets.ts#WidgetRegistry', 'src/widgets.ts#register', 'src/widgets.ts#find',
    ]);
  });

  it('memory cap: the pass stops at maxSymbols and says so; candidates are still parsed on demand', async () => {
    const { index, file } = await setup({ maxSymbols: 20 });
    await index.start();
    const status = index.status();
    expect(status).toMatchObject({ state: 'ready', capped: true });
    expect(status.symbols).toBeLessThanOrEqual(20);
    expect(status.progress).toBe(1);
    expect((await index.definitions('ring_push', [file('c/ring.c'), file('c/ring.h')])).map(({ path }) => path)).toEqual([
      'c/ring.c',
    ]);
    expect(index.status().symbols).toBeLessThanOrEqual(20);
  });

  it('files over maxFileBytes are not parsed', async () => {
    const { index, parsed } = await setup({ maxFileBytes: 400 });
    await index.start();
    expect(parsed.sort()).toEqual(['c/ring.c', 'c/ring.h', 'scripts/deploy.rb', 'src/format.ts', 'src/legacy.js']);
  });
});
