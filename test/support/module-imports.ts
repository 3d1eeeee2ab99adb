import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A source scan of module specifiers, shared by the edge-clean and layering tests: string literals and comments are
 * masked first, so neither an import in a comment nor one quoted in a string counts. The docs test reads the comments.
 */

export const NODE_BUILTINS = [
  'fs', 'path', 'os', 'child_process', 'crypto', 'http', 'net', 'stream', 'util', 'buffer', 'url', 'events',
  'worker_threads', 'tty', 'zlib',
];

/** `node:anything`, or a builtin by bare name, with or without a subpath ("fs/promises", "stream/web"). */
export function isNodeSpecifier(specifier: string): boolean {
  if (specifier.startsWith('node:')) return true;
  const [head] = specifier.split('/');
  return NODE_BUILTINS.includes(head!);
}

// One pass over the text: string literals are swapped for numbered placeholders and comments for a space, so
// neither `// import fs from 'fs'` in a comment nor "import os from 'os'" inside a string reads as an import.
const COMMENT_OR_STRING = /("(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`)|\/\*[\s\S]*?\*\/|\/\/[^\n]*/g;

const SPECIFIER_PATTERNS = [
  // import x from 'm' · import { a, b } from 'm' (multi-line) · import type … from 'm' · export … from 'm'
  /\b(?:import|export)\b[^;"]*?\bfrom\s*"(\d+)"/g,
  // import 'm' (side effect only)
  /\bimport\s*"(\d+)"/g,
  // import('m') · require('m')
  /\b(?:import|require)\s*\(\s*"(\d+)"\s*\)/g,
];

/** Every module specifier `source` imports, re-exports, dynamically imports or requires. */
export function importedSpecifiers(source: string): string[] {
  const strings: string[] = [];
  const code = source.replace(COMMENT_OR_STRING, (_match, literal: string | undefined) => {
    if (literal === undefined) return ' ';
    strings.push(literal.slice(1, -1));
    return `"${strings.length - 1}"`;
  });
  const found: string[] = [];
  for (const pattern of SPECIFIER_PATTERNS) {
    for (const match of code.matchAll(pattern)) found.push(strings[Number(match[1])]!);
  }
  return found;
}

/** The text of every comment in `source` (line and block comments), in order; string literals are not comments. */
export function commentsIn(source: string): string[] {
  const comments: string[] = [];
  for (const match of source.matchAll(COMMENT_OR_STRING)) {
    if (match[1] === undefined) comments.push(match[0]);
  }
  return comments;
}

/** The Node-only specifiers in `source` (empty when it is edge-clean). */
export function nodeImports(source: string): string[] {
  return importedSpecifiers(source).filter(isNodeSpecifier);
}

/** Every `.ts` file under `dir`, recursively. */
export async function tsFilesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}
