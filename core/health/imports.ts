/**
 * The imports of a JS/TS (or `.vue`) file for health's import graph: `import … from 'x'`, `import 'x'`,
 * `export … from 'x'`, `import('x')` and `require('x')` with a string literal. From the tree when the file was
 * parsed, else by IMPORT_PATTERN over the text. Other languages' imports are not followed (see the report).
 */
import type { SyntaxNode } from '../search/symbols/syntax-tree.ts';

const IMPORT_PATTERN =
  /\b(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"\n]+)['"]|\bimport\s*['"]([^'"\n]+)['"]|\b(?:import|require)\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g;

export function treeImports(root: SyntaxNode): string[] {
  const found: string[] = [];
  const stack: SyntaxNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'import_statement' || node.type === 'export_statement') {
      const source = node.childForFieldName('source');
      if (source?.type === 'string') found.push(unquote(source.text));
    } else if (node.type === 'call_expression') {
      const callee = node.childForFieldName('function');
      const argument = node.childForFieldName('arguments')?.namedChild(0);
      if (callee && argument?.type === 'string' && (callee.type === 'import' || (callee.type === 'identifier' && callee.text === 'require'))) {
        found.push(unquote(argument.text));
      }
    }
    for (let i = node.namedChildCount - 1; i >= 0; i--) {
      const child = node.namedChild(i);
      if (child) stack.push(child);
    }
  }
  return found;
}

export function textImports(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(IMPORT_PATTERN)) found.push((match[1] ?? match[2] ?? match[3])!);
  return found;
}

function unquote(text: string): string {
  return text.slice(1, -1);
}
