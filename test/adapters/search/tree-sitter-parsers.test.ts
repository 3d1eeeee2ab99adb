import { describe, expect, it } from 'vitest';
import { TreeSitterParsers } from '../../../adapters/search/tree-sitter-parsers.ts';
import type { LanguageId } from '../../../core/search/symbols/syntax-tree.ts';

const parsers = new TreeSitterParsers();

/** [language, source, root type, first named child type] */
const SAMPLES: [LanguageId, string, string, string][] = [
  ['typescript', 'let a: number = 1;', 'program', 'lexical_declaration'],
  ['tsx', 'const e = <div />;', 'program', 'lexical_declaration'],
  ['javascript', 'const e = <div />;', 'program', 'lexical_declaration'],
  ['python', 'def f():\n    pass\n', 'module', 'function_definition'],
  ['go', 'package main\n', 'source_file', 'package_clause'],
  ['rust', 'fn main() {}', 'source_file', 'function_item'],
  ['cpp', 'int main(void) { return 0; }', 'translation_unit', 'function_definition'],
  ['java', 'class A {}', 'program', 'class_declaration'],
];

describe('TreeSitterParsers (web-tree-sitter + @vscode/tree-sitter-wasm grammars)', () => {
  it.each(SAMPLES)('parses %s', async (language, source, rootType, firstType) => {
    const tree = await parsers.parse(language, source);
    expect(tree).toBeDefined();
    expect(tree!.rootNode.type).toBe(rootType);
    expect(tree!.rootNode.hasError).toBe(false);
    expect(tree!.rootNode.namedChild(0)!.type).toBe(firstType);
    expect(tree!.rootNode.text).toBe(source);
    tree!.delete();
  });

  it('positions are rows from 0 and UTF-16 columns', async () => {
    const tree = (await parsers.parse('typescript', 'const é = "ü😀";\n  let zz = 1;'))!;
    const second = tree.rootNode.namedChild(1)!;
    expect([second.type, second.startPosition, second.endPosition, second.startIndex]).toEqual([
      'lexical_declaration', { row: 1, column: 2 }, { row: 1, column: 13 }, 19,
    ]);
    const first = tree.rootNode.namedChild(0)!;
    expect(first.endPosition).toEqual({ row: 0, column: 16 });
    tree.delete();
  });

  it('a grammar that is not shipped answers undefined', async () => {
    expect(await parsers.parse('cobol' as LanguageId, 'IDENTIFICATION DIVISION.')).toBeUndefined();
  });

  it('a parse over its time budget is abandoned (undefined) and the next parse starts afresh', async () => {
    const impatient = new TreeSitterParsers({ maxParseMs: 0 });
    const big = 'const x = [' + '1, '.repeat(400_000) + '];\n';
    expect(await impatient.parse('typescript', big)).toBeUndefined();
    const tree = (await impatient.parse('typescript', 'let small = 1;'))!;
    // A resumed parse would have carried the cancelled text's state into this tree.
    expect([tree.rootNode.text, tree.rootNode.hasError]).toEqual(['let small = 1;', false]);
    tree.delete();
  });

  it('several languages interleaved keep their own parsers', async () => {
    const [ts, py, go] = await Promise.all([
      parsers.parse('typescript', 'function a() {}'),
      parsers.parse('python', 'class B: pass'),
      parsers.parse('go', 'package c\nfunc d() {}'),
    ]);
    expect([ts!.rootNode.namedChild(0)!.type, py!.rootNode.namedChild(0)!.type, go!.rootNode.namedChild(1)!.type]).toEqual([
      'function_declaration', 'class_definition', 'function_declaration',
    ]);
    for (const tree of [ts, py, go]) tree!.delete();
  });
});
