/**
 * The symbols of one file's text: parsed in its language when a grammar exists, by line heuristics when none
 * does or the parse failed (no tree, or a tree so broken that it yields nothing). The tree is freed here.
 */
import { extractSymbols } from './extract-symbols.ts';
import { heuristicSymbols } from './heuristic-symbols.ts';
import { parseSource } from './parse-source.ts';
import { isSourcePath, sourceLanguageOf } from './source-language.ts';
import type { SymbolDef } from './symbol-def.ts';
import type { ParserAdapter } from './syntax-tree.ts';

export type SymbolsOf = (path: string, text: string) => Promise<SymbolDef[]>;

export function fileSymbols(parsers: ParserAdapter): SymbolsOf {
  return async (path, text) => {
    if (!isSourcePath(path)) return [];
    if (sourceLanguageOf(path) === undefined) return heuristicSymbols(path, text);
    const parsed = await parseSource(parsers, path, text);
    if (parsed === undefined) return heuristicSymbols(path, text);
    try {
      const symbols = extractSymbols(path, text, parsed.tree, parsed.language);
      return symbols.length === 0 && parsed.tree.rootNode.hasError ? heuristicSymbols(path, text) : symbols;
    } finally {
      parsed.tree.delete();
    }
  };
}
