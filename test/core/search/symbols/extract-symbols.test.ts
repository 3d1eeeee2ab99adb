import { describe, expect, it } from 'vitest';
import { TreeSitterParsers } from '../../../../adapters/search/tree-sitter-parsers.ts';
import { fileSymbols } from '../../../../core/search/symbols/file-symbols.ts';
import type { SymbolDef, SymbolKind } from '../../../../core/search/symbols/symbol-def.ts';
import type { ParserAdapter } from '../../../../core/search/symbols/syntax-tree.ts';
import { fixtureText } from './fixture-repo.ts';

const parsers = new TreeSitterParsers();
const symbolsOf = fileSymbols(parsers);

type Row = [name: string, kind: SymbolKind, line: number, endLine: number, signature: string, exported: boolean];

function defs(rows: Row[], heuristic = false): SymbolDef[] {
  return rows.map(([name, kind, line, endLine, signature, exported]) => ({
    name, kind, line, endLine, signature, exported, heuristic,
  }));
}

async function symbolsOfFixture(path: string): Promise<SymbolDef[]> {
  return symbolsOf(path, await fixtureText(path));
}

describe('extractSymbols through the real tree-sitter grammars (the fixture repo)', () => {
  it('TypeScript: interface/type/enum are types, a const holding an arrow is a fn, class members are methods', async () => {
    expect(await symbolsOfFixture('src/widgets.ts')).toEqual(defs([
      ['Widget', 'type', 3, 7, 'export interface Widget {', true],
      ['WidgetId', 'type', 9, 9, 'export type WidgetId = string;', true],
      ['WidgetKind', 'type', 11, 14, 'export enum WidgetKind {', true],
      ['defaultWidgets', 'const', 16, 19, 'export const defaultWidgets: Widget[] = [', true],
      ['MAX_SIZE', 'const', 21, 21, 'const MAX_SIZE = 12;', false],
      ['renderWidget', 'fn', 23, 27, 'export function renderWidget(widget: Widget): string {', true],
      ['makeWidget', 'fn', 29, 29, 'export const makeWidget = (id: WidgetId, label: string): Widget => ({ id, label, size: 1 });', true],
      ['clampSize', 'fn', 31, 33, 'function clampSize(size: number): number {', false],
      ['WidgetRegistry', 'class', 35, 46, 'export class WidgetRegistry {', true],
      ['register', 'method', 38, 41, 'register(widget: Widget): void {', true],
      ['find', 'method', 43, 45, 'find(id: WidgetId): Widget | undefined {', true],
    ]));
  });

  it('TSX: a component function (local variables are not symbols)', async () => {
    expect(await symbolsOfFixture('src/app.tsx')).toEqual(defs([['App', 'fn', 4, 18, 'export function App() {', true]]));
  });

  it('JavaScript: CommonJS module (nothing is `export`ed), class with constructor and method', async () => {
    expect(await symbolsOfFixture('src/legacy.js')).toEqual(defs([
      ['path', 'const', 1, 1, "const path = require('path');", false],
      ['loadConfig', 'fn', 3, 6, 'function loadConfig(file) {', false],
      ['ConfigCache', 'class', 8, 16, 'class ConfigCache {', false],
      ['constructor', 'method', 9, 11, 'constructor() {', false],
      ['get', 'method', 13, 15, 'get(name) {', false],
      ['cache', 'const', 18, 18, 'const cache = new ConfigCache();', false],
    ]));
  });

  it('Vue: the <script setup> block is parsed as TypeScript, at the SFC\'s own line numbers', async () => {
    expect(await symbolsOfFixture('src/components/WidgetCard.vue')).toEqual(defs([
      ['props', 'const', 12, 12, 'const props = defineProps<{ widget: Widget }>();', false],
      ['title', 'const', 13, 13, 'const title = computed(() => renderWidget(props.widget));', false],
      ['select', 'fn', 15, 17, 'function select() {', false],
    ]));
  });

  it('Vue: several script blocks, lang="tsx" parsed as TSX; an SFC without script has no symbols', async () => {
    const sfc = [
      '<script lang="tsx">', // 1
      'export default { name: "Card" };', // 2
      'export const Icon = () => <i class="icon" />;', // 3
      '</script>', // 4
      '<template><p>hi</p></template>', // 5
      '<script setup lang="tsx">', // 6
      'function toggle() {}', // 7
      '</script>', // 8
    ].join('\n');
    expect(await symbolsOf('src/Card.vue', sfc)).toEqual(defs([
      ['Icon', 'fn', 3, 3, 'export const Icon = () => <i class="icon" />;', true],
      ['toggle', 'fn', 7, 7, 'function toggle() {}', false],
    ]));
    expect(await symbolsOf('src/Plain.vue', '<template><p>no script</p></template>\n')).toEqual([]);
  });

  it('Python: decorators skipped for the line, methods in a class, `_` names not exported', async () => {
    expect(await symbolsOfFixture('py/inventory.py')).toEqual(defs([
      ['DEFAULT_WAREHOUSE', 'const', 4, 4, 'DEFAULT_WAREHOUSE = "main"', true],
      ['Item', 'class', 8, 10, 'class Item:', true],
      ['Inventory', 'class', 13, 21, 'class Inventory:', true],
      ['__init__', 'method', 14, 15, 'def __init__(self):', false],
      ['add', 'method', 17, 18, 'def add(self, item: Item) -> None:', true],
      ['_audit', 'method', 20, 21, 'def _audit(self):', false],
      ['restock', 'fn', 24, 25, 'def restock(inventory, sku, count):', true],
      ['_normalize', 'fn', 28, 29, 'def _normalize(sku):', false],
    ]));
  });

  it('Go: structs and interfaces are types, a receiver makes a method, capitals are exported', async () => {
    expect(await symbolsOfFixture('go/main.go')).toEqual(defs([
      ['MaxWorkers', 'const', 5, 5, 'const MaxWorkers = 4', true],
      ['Job', 'type', 7, 10, 'type Job struct {', true],
      ['Runner', 'type', 12, 14, 'type Runner interface {', true],
      ['Describe', 'method', 16, 18, 'func (j Job) Describe() string {', true],
      ['newJob', 'fn', 20, 22, 'func newJob(id int, name string) Job {', false],
      ['main', 'fn', 24, 28, 'func main() {', false],
    ]));
  });

  it('Rust: struct and trait are types, impl and trait fns are methods, `pub` (or a trait) exports', async () => {
    expect(await symbolsOfFixture('rust/src/lib.rs')).toEqual(defs([
      ['DEFAULT_CAPACITY', 'const', 3, 3, 'pub const DEFAULT_CAPACITY: usize = 16;', true],
      ['Cache', 'type', 5, 7, 'pub struct Cache {', true],
      ['Store', 'type', 9, 11, 'pub trait Store {', true],
      ['get', 'method', 10, 10, 'fn get(&self, key: &str) -> Option<&String>;', true],
      ['new', 'method', 14, 16, 'pub fn new() -> Self {', true],
      ['evict', 'method', 18, 20, 'fn evict(&mut self) {', false],
      ['get', 'method', 24, 26, 'fn get(&self, key: &str) -> Option<&String> {', true],
      ['checksum', 'fn', 29, 31, 'fn checksum(data: &[u8]) -> u32 {', false],
    ]));
  });

  it('C (through the C++ grammar): macros, struct, typedef; prototypes are not definitions; static is not exported', async () => {
    expect(await symbolsOfFixture('c/ring.h')).toEqual(defs([
      ['RING_H', 'const', 2, 2, '#define RING_H', true],
      ['RING_SIZE', 'const', 4, 4, '#define RING_SIZE 64', true],
      ['ring', 'type', 6, 10, 'struct ring {', true],
      ['ring_t', 'type', 12, 12, 'typedef struct ring ring_t;', true],
    ]));
    expect(await symbolsOfFixture('c/ring.c')).toEqual(defs([
      ['RING_NEXT', 'fn', 3, 3, '#define RING_NEXT(i) (((i) + 1) % RING_SIZE)', true],
      ['ring_full', 'fn', 5, 8, 'static int ring_full(const struct ring *r)', false],
      ['ring_push', 'fn', 10, 17, 'int ring_push(struct ring *r, char c)', true],
    ]));
  });

  it('C++: classes in a namespace, in-class and out-of-line (`Circle::area`) methods', async () => {
    expect(await symbolsOfFixture('cpp/shapes.cpp')).toEqual(defs([
      ['Shape', 'class', 6, 10, 'class Shape {', true],
      ['~Shape', 'method', 8, 8, 'virtual ~Shape() = default;', true],
      ['area', 'method', 9, 9, 'virtual double area() const = 0;', true],
      ['Circle', 'class', 12, 19, 'class Circle : public Shape {', true],
      ['Circle', 'method', 14, 14, 'explicit Circle(double r) : radius(r) {}', true],
      ['area', 'method', 15, 15, 'double area() const override;', true],
      ['area', 'method', 21, 23, 'double Circle::area() const {', true],
      ['main', 'fn', 27, 31, 'int main() {', true],
    ]));
  });

  it('Java: annotations skipped for the line, static final fields are consts, `public` and interface members export', async () => {
    expect(await symbolsOfFixture('java/src/main/java/com/example/WidgetService.java')).toEqual(defs([
      ['WidgetService', 'class', 6, 28, 'public class WidgetService {', true],
      ['MAX_WIDGETS', 'const', 7, 7, 'public static final int MAX_WIDGETS = 100;', true],
      ['Listener', 'type', 11, 13, 'public interface Listener {', true],
      ['onAdded', 'method', 12, 12, 'void onAdded(String name);', true],
      ['toString', 'method', 16, 18, 'public String toString() {', true],
      ['add', 'method', 20, 23, 'public void add(String name) {', true],
      ['count', 'method', 25, 27, 'int count() {', false],
    ]));
  });

  it('on a test path a fn or const is a `test` (methods and classes keep their kind)', async () => {
    expect(await symbolsOfFixture('tests/widgets.spec.ts')).toEqual(defs([
      ['sample', 'test', 4, 4, "const sample = makeWidget('ok', 'OK');", false],
      ['registryWith', 'test', 6, 10, 'function registryWith(...ids: string[]): WidgetRegistry {', false],
    ]));
    const source = 'export const cases = [1];\nexport function helper() {}\nexport class Fake { run() {} }\n';
    const expected = (kind: SymbolKind) => defs([
      ['cases', kind, 1, 1, 'export const cases = [1];', true],
      ['helper', kind, 2, 2, 'export function helper() {}', true],
      ['Fake', 'class', 3, 3, 'export class Fake { run() {} }', true],
      ['run', 'method', 3, 3, 'export class Fake { run() {} }', true],
    ]);
    for (const path of ['a.test.ts', 'src/a.spec.js', 'test/a.ts', 'pkg/tests/a.ts', 'src/__tests__/a.ts']) {
      expect(await symbolsOf(path, source), path).toEqual(expected('test'));
    }
    expect(await symbolsOf('test_widgets.py', 'def test_add():\n    pass\n')).toEqual(
      defs([['test_add', 'test', 1, 2, 'def test_add():', true]]),
    );
    for (const path of ['src/attest.ts', 'src/contest/a.ts', 'latest.ts', 'src/testing.ts']) {
      expect(await symbolsOf(path, source), path).toEqual(expected('fn').map((d) => (d.name === 'cases' ? { ...d, kind: 'const' } : d)));
    }
  });

  it('TypeScript: `export { … }` lists export, private members do not, a namespace is walked, signatures stop at 160', async () => {
    const long = `export const table = [${'1, '.repeat(80)}];`;
    const source = [
      'function local() {}', // 1
      'const hidden = 1, shown = 2;', // 2
      'export { local, shown as visible };', // 3
      'export class Box {', // 4
      '  private secret() {}', // 5
      '  #hash() {}', // 6
      '  handler = () => 1;', // 7
      '}', // 8
      'namespace Shapes {', // 9
      '  export function area() {}', // 10
      '}', // 11
      long, // 12
    ].join('\n');
    expect(await symbolsOf('src/lists.ts', source)).toEqual(defs([
      ['local', 'fn', 1, 1, 'function local() {}', true],
      ['hidden', 'const', 2, 2, 'const hidden = 1, shown = 2;', false],
      ['shown', 'const', 2, 2, 'const hidden = 1, shown = 2;', true],
      ['Box', 'class', 4, 8, 'export class Box {', true],
      ['secret', 'method', 5, 5, 'private secret() {}', false],
      ['#hash', 'method', 6, 6, '#hash() {}', false],
      ['handler', 'method', 7, 7, 'handler = () => 1;', true],
      ['area', 'fn', 10, 10, 'export function area() {}', true],
      ['table', 'const', 12, 12, long.slice(0, 160), true],
    ]));
  });

  it('Markdown and data files have no symbols', async () => {
    expect(await symbolsOfFixture('docs/guide.md')).toEqual([]);
    expect(await symbolsOfFixture('package.json')).toEqual([]);
  });

  it('a language with no grammar (Ruby) falls back to the line heuristics', async () => {
    expect(await symbolsOfFixture('scripts/deploy.rb')).toEqual(defs([
      ['Deployer', 'class', 2, 10, 'class Deployer', true],
      ['initialize', 'method', 3, 5, 'def initialize(target)', true],
      ['upload', 'method', 7, 9, 'def upload(bundle)', true],
    ], true));
  });

  it('a failed parse (no tree) falls back to the line heuristics (unindented variables, no methods: lines only), marked heuristic', async () => {
    const failing: ParserAdapter = { parse: async () => undefined };
    const text = await fixtureText('src/widgets.ts');
    expect(await fileSymbols(failing)('src/widgets.ts', text)).toEqual(defs([
      ['Widget', 'type', 3, 7, 'export interface Widget {', true],
      ['WidgetId', 'type', 9, 9, 'export type WidgetId = string;', true],
      ['WidgetKind', 'type', 11, 14, 'export enum WidgetKind {', true],
      ['defaultWidgets', 'const', 16, 19, 'export const defaultWidgets: Widget[] = [', true],
      // Without a parser nothing tells a module's own names from its exports (as for `function clampSize`).
      ['MAX_SIZE', 'const', 21, 21, 'const MAX_SIZE = 12;', true],
      ['renderWidget', 'fn', 23, 27, 'export function renderWidget(widget: Widget): string {', true],
      ['makeWidget', 'fn', 29, 29, 'export const makeWidget = (id: WidgetId, label: string): Widget => ({ id, label, size: 1 });', true],
      ['clampSize', 'fn', 31, 33, 'function clampSize(size: number): number {', true],
      ['WidgetRegistry', 'class', 35, 46, 'export class WidgetRegistry {', true],
    ], true));
  });

  it('a source file holding a NUL byte is still parsed', async () => {
    expect(await symbolsOf('src/nul.ts', 'const marker = "\u0000";\nexport function after() {}\n')).toEqual(defs([
      ['marker', 'const', 1, 1, 'const marker = "\u0000";', false],
      ['after', 'fn', 2, 2, 'export function after() {}', true],
    ]));
  });
});
