/**
 * Parses a file's text in its own language: the one place that knows a Vue SFC is parsed through its masked
 * script blocks. The caller owns the tree and must `delete()` it.
 */
import { sourceLanguageOf } from './source-language.ts';
import type { LanguageId, ParserAdapter, SyntaxTree } from './syntax-tree.ts';
import { maskVueScripts } from './vue-script-blocks.ts';

export interface ParsedSource {
  tree: SyntaxTree;
  /** The grammar that parsed it. */
  language: LanguageId;
}

export async function parseSource(parsers: ParserAdapter, path: string, text: string): Promise<ParsedSource | undefined> {
  const source = sourceLanguageOf(path);
  if (source === undefined) return undefined;
  if (source === 'vue') {
    const masked = maskVueScripts(text);
    if (!masked.found) return undefined;
    const tree = await parsers.parse(masked.grammar, masked.text);
    return tree && { tree, language: masked.grammar };
  }
  const tree = await parsers.parse(source, text);
  return tree && { tree, language: source };
}
