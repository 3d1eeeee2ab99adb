/**
 * `/workspace/search` over the multi-language fixture repo (test/fixtures/search-repo: TS, TSX, JS, Vue, Python, Go,
 * Rust, C, C++, Java, Ruby, Markdown, an ignored dist/ and node_modules/), through Intentic's client, with the
 * daemon's real parsers, on both file backends: a definition in every language, ignore rules, include.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TreeSitterParsers } from '../../../adapters/search/tree-sitter-parsers.ts';
import { BACKENDS } from '../../support/backends.ts';
import { fixtureSeed } from '../../core/search/symbols/fixture-repo.ts';
import { FRESH, openSearch, type SearchFixture } from './search-fixture.ts';

const parsers = new TreeSitterParsers();

describe.each(BACKENDS)('/workspace/search on the fixture repo (%s)', (backend) => {
  let ws: SearchFixture;
  beforeAll(async () => {
    ws = await openSearch(backend, await fixtureSeed(), { search: { parsers } });
  });
  afterAll(() => ws.cleanup());

  const definition = async (query: string) => {
    const answer = await ws.search({ query, mode: 'def' });
    return answer.groups.map((group) => ({ path: group.path, hits: group.hits.map((hit) => [hit.line, hit.text, hit.tags.map((tag) => tag.kind).join('+')]) }));
  };

  it.each([
    ['Job', 'go/main.go', 7, 'type Job struct {', 'def'],
    ['restock', 'py/inventory.py', 24, 'def restock(inventory, sku, count):', 'def'],
    ['WidgetService', 'java/src/main/java/com/example/WidgetService.java', 6, 'public class WidgetService {', 'def'],
    ['Cache', 'rust/src/lib.rs', 5, 'pub struct Cache {', 'def'],
    ['select', 'src/components/WidgetCard.vue', 15, 'function select() {', 'def'],
    ['renderWidget', 'src/widgets.ts', 23, 'export function renderWidget(widget: Widget): string {', 'def'],
    // No grammar for Ruby: found by the line heuristics, and tagged so.
    ['Deployer', 'scripts/deploy.rb', 2, 'class Deployer', 'def+heuristic'],
  ])('def %s → %s:%i', async (query, path, line, text, tags) => {
    expect(await definition(query)).toEqual([{ path, hits: [[line, text, tags]] }]);
  });

  it('def in C++: the class and its constructor (a method named like it)', async () => {
    expect(await definition('Circle')).toEqual([
      { path: 'cpp/shapes.cpp', hits: [[12, 'class Circle : public Shape {', 'def'], [14, 'explicit Circle(double r) : radius(r) {}', 'def']] },
    ]);
  });

  it('def in C: the definition in ring.c, not the prototype in ring.h', async () => {
    expect(await definition('ring_push')).toEqual([{ path: 'c/ring.c', hits: [[10, 'int ring_push(struct ring *r, char c)', 'def']] }]);
  });

  it('find skips dist/ (gitignored) and node_modules/ unless includeIgnored', async () => {
    const paths = async (includeIgnored: string) =>
      (await ws.search({ query: 'renderWidget', mode: 'find', literal: 'true', includeIgnored })).groups.map((group) => group.path).sort();
    const searched = ['docs/guide.md', 'src/app.tsx', 'src/components/WidgetCard.vue', 'src/widgets.ts', 'tests/widgets.spec.ts'];
    expect(await paths('false')).toEqual(searched);
    expect(await paths('true')).toEqual([...searched, 'dist/bundle.js'].sort());
  });

  it('refs tags each use with what it does, and leaves the definition out', async () => {
    const answer = await ws.search({ query: 'renderWidget', mode: 'refs', include: 'src' });
    const uses = answer.groups.flatMap((group) => group.hits.map((hit) => `${group.path}:${hit.line} ${hit.tags.map((tag) => tag.kind).join('+')}`)).sort();
    expect(uses).toEqual([
      'src/app.tsx:13 call',
      'src/app.tsx:2 import',
      'src/components/WidgetCard.vue:10 import',
      'src/components/WidgetCard.vue:13 call',
    ]);
    expect(answer.freshness).toEqual(FRESH);
  });

  it('ast matches each file in its own language', async () => {
    const answer = await ws.search({ query: 'fmt.Println($$$)', mode: 'ast' });
    expect(answer.groups.map((group) => [group.path, group.hits.map((hit) => hit.line)])).toEqual([['go/main.go', [26, 27]]]);
    const logs = await ws.search({ query: 'console.log($$$)', mode: 'ast' });
    expect(logs.groups.map((group) => group.path).sort()).toEqual(['src/app.tsx', 'src/components/WidgetCard.vue', 'src/legacy.js', 'src/widgets.ts']);
  });
});
