/**
 * What health knows of one file, from its bytes alone (so it can be cached per file and refreshed when the
 * file changes): complexity (./complexity.ts), its symbols and how many are exported (the search engine's
 * extractors: tree-sitter where parsed, its line heuristics elsewhere), its import specifiers, and whether it is
 * generated. Binary files (a NUL in the first 8000 bytes, git's test) and files over 1 MiB are all zero.
 */
import { extractSymbols, heuristicSymbols, type SymbolDef } from '../search/symbols/extract-symbols.ts';
import { parseSource } from '../search/symbols/parse-source.ts';
import { isSourcePath, sourceLanguageOf } from '../search/symbols/source-language.ts';
import type { ParserAdapter } from '../search/symbols/syntax-tree.ts';
import { extensionOf, isCountedLanguage, textComplexity, treeComplexity, ZERO_EXTENSIONS } from './complexity.ts';
import { textImports, treeImports } from './imports.ts';

export const MAX_MEASURED_BYTES = 1024 * 1024;
const BINARY_PROBE_BYTES = 8000;
/** An `@generated` marker counts within the file's first this many characters (its header). */
const GENERATED_HEADER_CHARS = 1024;

export interface FileFigures {
  complexity: number;
  symbols: number;
  exports: number;
  /** Import specifiers as written (JS/TS and Vue files). */
  imports: string[];
  generated: boolean;
}

/**
 * How health gets a file's figures: `fileFigures` with the search engine's parsers, in-process or (Node) on the
 * parse pool's worker threads (adapters/search/parse-pool.ts), whose answers are the same.
 */
export type FiguresOf = (path: string, bytes: Uint8Array | undefined) => Promise<FileFigures>;

const EMPTY: Omit<FileFigures, 'generated'> = { complexity: 0, symbols: 0, exports: 0, imports: [] };
const IMPORTING = new Set(['typescript', 'tsx', 'javascript', 'vue']);
const decoder = new TextDecoder();

/** `generated/` in the path, `.generated.` in the name, or an `@generated` header. */
export function isGeneratedPath(path: string): boolean {
  const segments = path.split('/');
  const base = segments.pop() ?? '';
  return segments.includes('generated') || base.includes('.generated.');
}

export function isBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, BINARY_PROBE_BYTES);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

/** The figures of the file at root-relative `path`; `bytes` undefined means it was over MAX_MEASURED_BYTES. */
export async function fileFigures(path: string, bytes: Uint8Array | undefined, parsers: ParserAdapter | undefined): Promise<FileFigures> {
  const generatedByPath = isGeneratedPath(path);
  if (bytes === undefined || bytes.length > MAX_MEASURED_BYTES || isBinary(bytes)) return { ...EMPTY, generated: generatedByPath };
  const text = decoder.decode(bytes);
  const generated = generatedByPath || text.slice(0, GENERATED_HEADER_CHARS).includes('@generated');
  const source = sourceLanguageOf(path);
  // C and C++ are parsed too, for their symbols (their complexity is the text pattern's).
  const parsed = parsers && source !== undefined ? await parseSource(parsers, path, text) : undefined;
  try {
    let symbols: SymbolDef[] = [];
    if (parsed) symbols = extractSymbols(path, text, parsed.tree, parsed.language);
    else if (isSourcePath(path)) symbols = heuristicSymbols(path, text);
    let complexity = 0;
    if (!ZERO_EXTENSIONS.has(extensionOf(path))) {
      complexity = parsed && isCountedLanguage(parsed.language) ? treeComplexity(parsed.tree.rootNode, parsed.language) : textComplexity(text);
    }
    let imports: string[] = [];
    if (source !== undefined && IMPORTING.has(source)) imports = parsed ? treeImports(parsed.tree.rootNode) : textImports(text);
    return { complexity, symbols: symbols.length, exports: symbols.filter((s) => s.exported).length, imports, generated };
  } finally {
    parsed?.tree.delete();
  }
}
