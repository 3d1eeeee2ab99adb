/**
 * Running an `ast` pattern over one file, wherever the parsers live: in-process (the memory backend, tests), or
 * in the Node daemon's parse worker (adapters/search/parse-pool.ts), so a syntax search neither blocks the event
 * loop for its parses nor leaves the WASM memory they grow in the main thread. Both ends run `inProcessAstMatcher`.
 */
import { AstPattern, type AstLineMatch } from './ast-pattern.ts';
import type { ParserAdapter } from './syntax-tree.ts';

/** The matches of `pattern` (an `ast` query) in one file's text, by line. */
export type AstMatcher = (pattern: string, path: string, text: string) => Promise<AstLineMatch[]>;

/** Patterns compiled per grammar are kept for the last few queries (a query matches many files). */
const KEPT_PATTERNS = 8;

export function inProcessAstMatcher(parsers: ParserAdapter): AstMatcher {
  const patterns = new Map<string, AstPattern>();
  return (source, path, text) => {
    let pattern = patterns.get(source);
    if (pattern === undefined) {
      pattern = new AstPattern(source);
      patterns.set(source, pattern);
      for (const oldest of patterns.keys()) {
        if (patterns.size <= KEPT_PATTERNS) break;
        patterns.delete(oldest);
      }
    }
    return pattern.matchFile(parsers, path, text);
  };
}
