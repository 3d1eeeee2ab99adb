/**
 * What a reference does (docs/intentic-search.md, `refs`): each occurrence gets the first kind that fits, in this order,
 * by these cues and no others —
 * - `import`: the line (leading blanks aside) starts with `import`, `from` (as words), `export {`, `use `, or it
 *   has `require(` anywhere;
 * - `write`: the name then `=` (blanks between allowed) but not `==` or `=>`; or then `++ -- += -=`; or, ours,
 *   `++`/`--` right before it (the prefix forms of the same writes);
 * - `call`: the name then `(` (blanks between allowed) or `<` (right after it: `a < b` is a comparison), unless
 *   the word before the name is `function def const let var class` (that is a definition's line);
 * - `type`: right after `:` (not `::`, a path), `extends`, `implements`, `new`, `satisfies` or `as`;
 * - else `text`.
 * A line with several occurrences takes the first kind in that order that any of them fits (classifyRefLine).
 */
export type RefKind = 'import' | 'write' | 'call' | 'type' | 'text';

export const REF_KIND_ORDER: readonly RefKind[] = ['import', 'write', 'call', 'type', 'text'];

const IMPORT_LINE = /^\s*(?:(?:import|from)(?![\w$])|export\s*\{|use\s)/;
const DEFINING_WORDS = new Set(['function', 'def', 'const', 'let', 'var', 'class']);
const TYPE_WORDS = new Set(['extends', 'implements', 'new', 'satisfies', 'as']);

/** The kind of the occurrence of `name` at `matchStart` (a UTF-16 offset) in `lineText`. */
export function classifyRef(lineText: string, name: string, matchStart: number): RefKind {
  if (IMPORT_LINE.test(lineText) || lineText.includes('require(')) return 'import';
  const after = lineText.slice(matchStart + name.length);
  const before = lineText.slice(0, matchStart);
  if (isWrite(after, before)) return 'write';
  const previousWord = /([\w$]+)\s*$/.exec(before)?.[1];
  if (/^\s*\(/.test(after) || after.startsWith('<')) {
    if (previousWord === undefined || !DEFINING_WORDS.has(previousWord)) return 'call';
  }
  if (/(?:^|[^:]):\s*$/.test(before)) return 'type';
  if (previousWord !== undefined && TYPE_WORDS.has(previousWord)) return 'type';
  return 'text';
}

function isWrite(after: string, before: string): boolean {
  if (/^\s*=(?![=>])/.test(after)) return true;
  if (/^\s*(?:\+\+|--|\+=|-=)/.test(after)) return true;
  return /(?:\+\+|--)$/.test(before);
}

/** The line's kind: the first kind, in REF_KIND_ORDER, that one of the occurrences at `matchStarts` fits. */
export function classifyRefLine(lineText: string, name: string, matchStarts: readonly number[]): RefKind {
  let best = REF_KIND_ORDER.length - 1;
  for (const start of matchStarts) best = Math.min(best, REF_KIND_ORDER.indexOf(classifyRef(lineText, name, start)));
  return REF_KIND_ORDER[best]!;
}
