import { describe, expect, it } from 'vitest';
import { heuristicSymbols } from '../../../../core/search/symbols/heuristic-symbols.ts';
import type { SymbolKind } from '../../../../core/search/symbols/symbol-def.ts';

/** [line text, name, kind, exported] for a one-line file. */
const CASES: [string, string, SymbolKind, boolean][] = [
  ['function plain(a) {', 'plain', 'fn', true],
  ['export async function load<T>(x: T) {', 'load', 'fn', true],
  ['function* gen() {', 'gen', 'fn', true],
  ['public function handle($request) {', 'handle', 'fn', true],
  ['private function _secret() {', '_secret', 'fn', false],
  ['class Widget extends Base {', 'Widget', 'class', true],
  ['public sealed class Order {', 'Order', 'class', true],
  ['object Registry {', 'Registry', 'class', true],
  ['def area(self):', 'area', 'fn', true],
  ['def _hidden():', '_hidden', 'fn', false],
  ['def self.build', 'build', 'fn', true],
  ['def empty?', 'empty?', 'fn', true],
  ['pub fn parse(input: &str) -> Ast {', 'parse', 'fn', true],
  ['pub(crate) unsafe fn raw() {', 'raw', 'fn', true],
  ['fun main() {', 'main', 'fn', true],
  ['func Serve(addr string) error {', 'Serve', 'fn', true],
  ['func helper() {', 'helper', 'fn', false],
  ['func (s *Server) Close() error {', 'Close', 'method', true],
  ['func (s *Server) close() {', 'close', 'method', false],
  ['module Billing', 'Billing', 'type', true],
  ['protocol Drawable {', 'Drawable', 'type', true],
  ['sub render {', 'render', 'fn', true],
  ['deploy() {', 'deploy', 'fn', true],
];

describe('heuristicSymbols', () => {
  it.each(CASES)('%j → %s (%s)', (line, name, kind, exported) => {
    expect(heuristicSymbols('x', line)).toEqual([
      { name, kind, line: 1, endLine: 1, signature: line.trim(), exported, heuristic: true },
    ]);
  });

  it('an indented def is a method; the extent runs to the closing `end` at the same indentation', () => {
    const ruby = ['class Cart', '  def add(item)', '    @items << item', '  end', '', '  def total', '    1', '  end', 'end', ''].join('\n');
    expect(heuristicSymbols('cart.rb', ruby)).toEqual([
      { name: 'Cart', kind: 'class', line: 1, endLine: 9, signature: 'class Cart', exported: true, heuristic: true },
      { name: 'add', kind: 'method', line: 2, endLine: 4, signature: 'def add(item)', exported: true, heuristic: true },
      { name: 'total', kind: 'method', line: 6, endLine: 8, signature: 'def total', exported: true, heuristic: true },
    ]);
  });

  it('an unindented variable is a const (a fn when it holds one), spanning its initializer; an indented one is not', () => {
    const one = (path: string, text: string) => heuristicSymbols(path, text).map((def) => [def.name, def.kind, def.line, def.endLine, def.exported]);
    expect(one('a.ts', 'export const defaultWidgets = [\n  a,\n];\nlet counters = {\n  b: 1,\n};\n')).toEqual([
      ['defaultWidgets', 'const', 1, 3, true],
      ['counters', 'const', 4, 6, true],
    ]);
    expect(one('a.js', 'var handler = async (req) => {\n  go();\n};\nconst twice = x => x * 2;\nconst f = function () {};\n')).toEqual([
      ['handler', 'fn', 1, 3, true],
      ['twice', 'fn', 4, 4, true],
      ['f', 'fn', 5, 5, true],
    ]);
    expect(one('a.kt', 'private val table: Map<String, Int> = mapOf(\n  "a" to 1,\n)\n')).toEqual([['table', 'const', 1, 3, false]]);
    expect(one('a.swift', 'let limit = 3\n')).toEqual([['limit', 'const', 1, 1, true]]);
    expect(one('a.rs', 'pub static mut COUNT: u32 = 0;\nstatic TABLE: [u8; 2] = [\n    1, 2,\n];\n')).toEqual([
      ['COUNT', 'const', 1, 1, true],
      ['TABLE', 'const', 2, 4, false],
    ]);
    expect(one('a.go', 'var widgets = []int{\n\t1,\n}\nvar count int\n')).toEqual([
      ['widgets', 'const', 1, 3, true],
      ['count', 'const', 4, 4, true],
    ]);
    // Local variables (indented), destructuring and bare statements are not module-level variables.
    expect(one('a.ts', 'function f() {\n  const local = 1;\n}\nconst { a, b } = obj;\nletters = 2;\n').map(([name]) => name)).toEqual(['f']);
    // An unindented assignment is a const in Python and Ruby only (elsewhere it is a statement).
    expect(one('a.py', 'WIDGETS = [\n    1,\n]\nif x == 1:\n    y = 2\n')).toEqual([['WIDGETS', 'const', 1, 3, true]]);
    expect(one('a.rb', 'LIMIT = 3\n')).toEqual([['LIMIT', 'const', 1, 1, true]]);
    expect(one('a.sh', 'LIMIT=3\n')).toEqual([]);
  });

  it('an indentation block without a closer ends at its last indented line', () => {
    expect(heuristicSymbols('a.py', 'def f():\n    return 1\n\n\nx = 2\n')).toEqual([
      { name: 'f', kind: 'fn', line: 1, endLine: 2, signature: 'def f():', exported: true, heuristic: true },
      { name: 'x', kind: 'const', line: 5, endLine: 5, signature: 'x = 2', exported: true, heuristic: true },
    ]);
  });

  it('prose and calls are not definitions; lines over 1000 characters are not read', () => {
    expect(heuristicSymbols('a.rb', 'the class of problems\nfoo(bar)\nputs "def x"\n')).toEqual([]);
    expect(heuristicSymbols('a.js', `function big() {${' '.repeat(1000)}`)).toEqual([]);
  });
});
