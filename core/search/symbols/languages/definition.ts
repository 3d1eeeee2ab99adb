/**
 * What a language's rules (./*.ts, one per grammar family) report for each definition: the extractor
 * (../extract-symbols.ts) turns these into SymbolDefs, with lines, signatures and the test-path rule, once for
 * every language.
 */
import type { SyntaxNode } from '../syntax-tree.ts';

export type DefinitionKind = 'fn' | 'method' | 'class' | 'type' | 'const';

export interface Definition {
  name: string;
  kind: DefinitionKind;
  /** The whole definition (its range gives `endLine`, and `enclosing` its extent). */
  node: SyntaxNode;
  /** Where the definition's first line is looked for (default `node`): decorators and annotations are skipped. */
  head?: SyntaxNode;
  exported: boolean;
}

export type CollectDefinitions = (root: SyntaxNode) => Definition[];

/** The node's children, without the nulls web-tree-sitter may hand back. */
export function childrenOf(node: SyntaxNode): SyntaxNode[] {
  return node.children.filter((child): child is SyntaxNode => child !== null);
}

export function namedChildrenOf(node: SyntaxNode): SyntaxNode[] {
  return node.namedChildren.filter((child): child is SyntaxNode => child !== null);
}

/** Whether one of `node`'s direct children is the token or node `type` (a keyword, a modifier). */
export function hasChildOfType(node: SyntaxNode, type: string): boolean {
  return childrenOf(node).some((child) => child.type === type);
}
