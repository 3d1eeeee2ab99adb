/**
 * The definitions in one parsed file (docs/intentic-search.md: `def`, `sym`, the last paragraph). Each grammar family
 * has its own rules (./languages/*.ts, which also say how each language's kinds and `exported` are read); the
 * lines, signatures and the test-path rule are applied here, once for all of them.
 */
import { collectCFamilyDefinitions } from './languages/c-family.ts';
import { childrenOf, type CollectDefinitions, type Definition } from './languages/definition.ts';
import { collectGoDefinitions } from './languages/go.ts';
import { collectJavaDefinitions } from './languages/java.ts';
import { collectPythonDefinitions } from './languages/python.ts';
import { collectRustDefinitions } from './languages/rust.ts';
import { collectTypeScriptDefinitions } from './languages/typescript.ts';
import { isTestPath, signatureOf, type SymbolDef, type SymbolKind } from './symbol-def.ts';
import type { LanguageId, SyntaxNode, SyntaxTree } from './syntax-tree.ts';

export type { SymbolDef, SymbolKind } from './symbol-def.ts';
export { heuristicSymbols } from './heuristic-symbols.ts';

const RULES: Record<LanguageId, CollectDefinitions> = {
  typescript: collectTypeScriptDefinitions,
  tsx: collectTypeScriptDefinitions,
  javascript: collectTypeScriptDefinitions,
  python: collectPythonDefinitions,
  go: collectGoDefinitions,
  rust: collectRustDefinitions,
  cpp: collectCFamilyDefinitions,
  java: collectJavaDefinitions,
};

/** Children that come before a definition's first line: they are part of its extent, not its signature. */
const DECORATIONS = new Set(['decorator', 'annotation', 'marker_annotation', 'comment', 'attribute_item', 'attribute_declaration']);

/**
 * The definitions of `tree` (parsed from `text` in `language`), in line order, outer before inner. `text` is
 * the file's own text (for a Vue SFC, the SFC, not the masked script), so signatures are the file's lines.
 */
export function extractSymbols(path: string, text: string, tree: SyntaxTree, language: LanguageId): SymbolDef[] {
  const lines = text.split('\n');
  const onTestPath = isTestPath(path);
  const symbols = RULES[language](tree.rootNode).map((definition) => toSymbol(definition, lines, onTestPath));
  return symbols.sort((a, b) => a.line - b.line || b.endLine - a.endLine);
}

function toSymbol(definition: Definition, lines: string[], onTestPath: boolean): SymbolDef {
  const { node } = definition;
  const line = firstRow(definition.head ?? node) + 1;
  const kind: SymbolKind = onTestPath && (definition.kind === 'fn' || definition.kind === 'const') ? 'test' : definition.kind;
  return {
    name: definition.name,
    kind,
    line,
    endLine: Math.max(line, lastLine(node)),
    signature: signatureOf(lines[line - 1] ?? ''),
    exported: definition.exported,
    heuristic: false,
  };
}

/** The row of the first child that is not a decorator, an annotation or a comment (looking into `modifiers`). */
function firstRow(node: SyntaxNode): number {
  for (const child of childrenOf(node)) {
    if (DECORATIONS.has(child.type)) continue;
    if (child.type === 'modifiers') {
      const inside = childrenOf(child).find((modifier) => !DECORATIONS.has(modifier.type));
      if (inside) return inside.startPosition.row;
      continue;
    }
    return child.startPosition.row;
  }
  return node.startPosition.row;
}

/** 1-based last line: a node ending at column 0 (a `#define`'s line break) ends on the line before. */
function lastLine(node: SyntaxNode): number {
  const end = node.endPosition;
  return end.column === 0 && end.row > node.startPosition.row ? end.row : end.row + 1;
}
