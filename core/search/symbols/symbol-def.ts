/** A definition the symbol engine found in a file: what `def`, `sym` and `context` answer with. */
export type SymbolKind = 'fn' | 'method' | 'class' | 'type' | 'const' | 'test';

export interface SymbolDef {
  name: string;
  kind: SymbolKind;
  /** 1-based: the definition's first line, past any decorator or annotation lines. */
  line: number;
  /** 1-based, inclusive: the last line of the definition (its body included). */
  endLine: number;
  /** The definition's first line, trimmed, at most 160 characters (a `const` shows its statement, `export` included). */
  signature: string;
  /** Visible outside its module, by the language's own rule (see ./extract-symbols.ts). */
  exported: boolean;
  /** Found by a line pattern, not a parser (./heuristic-symbols.ts). */
  heuristic: boolean;
}

export const MAX_SIGNATURE_LENGTH = 160;

/** The signature shown for a definition whose first line is `lineText`. */
export function signatureOf(lineText: string): string {
  return lineText.trim().slice(0, MAX_SIGNATURE_LENGTH);
}

const TEST_FOLDERS = new Set(['test', 'tests', '__tests__']);

/**
 * docs/intentic-search.md: on test paths (`*.test.*`, `*.spec.*`, `test/`, `tests/`, `__tests__/`, `test_*`) a `fn` or
 * `const` is a `test`. The folders count at any depth; `test_*` is the file's base name (pytest's convention).
 */
export function isTestPath(path: string): boolean {
  const segments = path.split('/');
  const base = segments.pop() ?? '';
  if (segments.some((segment) => TEST_FOLDERS.has(segment))) return true;
  return base.startsWith('test_') || /\.(?:test|spec)\./.test(base);
}
