/**
 * The part of a tree-sitter syntax tree the symbol engine reads. Structural, so core stays edge-clean: the Node
 * adapter (adapters/search/tree-sitter-parsers.ts) hands web-tree-sitter's own trees, which already have this
 * shape, and a test or another runtime may hand anything else that does.
 */

/** A grammar the parser adapter can load. C is parsed by the C++ grammar (it is a near superset). */
export type LanguageId = 'typescript' | 'tsx' | 'javascript' | 'python' | 'go' | 'rust' | 'cpp' | 'java';

/** `row` from 0; `column` in UTF-16 code units when the text was handed over as a JavaScript string. */
export interface Point {
  readonly row: number;
  readonly column: number;
}

export interface SyntaxNode {
  readonly type: string;
  readonly text: string;
  readonly isNamed: boolean;
  readonly startPosition: Point;
  readonly endPosition: Point;
  /** Offsets into the parsed text (UTF-16 code units for a JavaScript string). */
  readonly startIndex: number;
  readonly endIndex: number;
  readonly childCount: number;
  readonly namedChildCount: number;
  readonly children: readonly (SyntaxNode | null)[];
  readonly namedChildren: readonly (SyntaxNode | null)[];
  readonly parent: SyntaxNode | null;
  readonly hasError: boolean;
  child(index: number): SyntaxNode | null;
  namedChild(index: number): SyntaxNode | null;
  childForFieldName(field: string): SyntaxNode | null;
}

export interface SyntaxTree {
  readonly rootNode: SyntaxNode;
  /** Frees the tree's memory (tree-sitter trees live in WASM memory, not the JavaScript heap). */
  delete(): void;
}

export interface ParserAdapter {
  /** The tree of `text` in `language`, or undefined when that grammar is not available or the parse failed. */
  parse(language: LanguageId, text: string): Promise<SyntaxTree | undefined>;
}
