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

  it('an indentation block without a closer ends at its last indented line', () => {
    expect(heuristicSymbols('a.py', 'def f():\n    return 1\n\n\nx = 2\n')).toEqual([
      { name: 'f', kind: 'fn', line: 1, endLine: 2, signature: 'def f():', exported: true, heuristic: true },
    ]);
  });

  it('prose and calls are not definitions; lines over 1000 characters are not read', () => {
    expect(heuristicSymbols('a.rb', 'the class of problems\nfoo(bar)\nputs "def x"\n')).toEqual([]);
    expect(heuristicSymbols('a.js', `function big() {${' '.repeat(1000)}`)).toEqual([]);
  });
});
