/**
 * Definitions found without a parser, by line patterns (`function x`, `def x`, `class X`, `fn x`, `func X`,
 * `const x =`, …):
 * for languages with no grammar here and for files whose parse failed. Every one is `heuristic: true`, which
 * `def` shows as its own tag. Its extent is guessed from indentation: up to the line before the next non-blank
 * line indented no deeper, that line included when it only closes the block (`end`, `}`).
 * exported: not marked `private`/`protected`/`static`/`local` and not named with a leading `_` (`func` follows
 * Go's capital-letter rule; `export`/`pub`/`public` always export).
 */
import { signatureOf, type SymbolDef, type SymbolKind } from './symbol-def.ts';

/**
 * Which rules found a file's definitions: bump it whenever `heuristicSymbols` may answer differently for some
 * file, so definitions kept between runs (core/search/file-facts-store.ts) are found afresh.
 */
export const HEURISTIC_SYMBOLS_FORMAT = 1;

interface LineRule {
  pattern: RegExp;
  kind: SymbolKind;
  /** An indented match of a `fn` rule is a method (a `def` inside a Ruby or Python class). */
  indentedIsMethod?: boolean;
  /** Only for the files whose path this matches. */
  paths?: RegExp;
}

const MODIFIERS = String.raw`(?:(?:export|default|public|private|protected|internal|static|final|abstract|open|sealed|override|async|unsafe|inline|local|pub(?:\([^)]*\))?|data|extern)\s+)*`;

/**
 * A module-level variable: a declaration at the line's start, unindented (`const`/`let`/`var` in JavaScript,
 * `val`/`var` in Kotlin and Scala, `let`/`var` in Swift, `const`/`static`/`var` in Rust and Go), its name followed
 * by a type or a value. Holding a function (`= (…) =>`, `= function`, `= x =>`) it is a `fn`.
 */
const VARIABLE = String.raw`^${MODIFIERS}(?:declare\s+)?(?:const|let|var|val|static)\s+(?:mut\s+)?([A-Za-z_$][\w$]*)`;
const FUNCTION_VALUE = String.raw`\s*(?::[^=]*)?=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]*)?=>|[A-Za-z_$][\w$]*\s*=>)`;

const RULES: LineRule[] = [
  { pattern: new RegExp(String.raw`^\s*${MODIFIERS}function\s*\*?\s*&?\s*([A-Za-z_$][\w$]*)\s*[(<]`), kind: 'fn' },
  { pattern: new RegExp(String.raw`^\s*${MODIFIERS}(?:class|object)\s+([A-Za-z_$][\w$]*)`), kind: 'class' },
  { pattern: /^func\s+\([^)]*\)\s*([A-Za-z_]\w*)/, kind: 'method' },
  { pattern: /^\s*def\s+(?:self\.)?([A-Za-z_]\w*[?!=]?)/, kind: 'fn', indentedIsMethod: true },
  { pattern: new RegExp(String.raw`^\s*${MODIFIERS}(?:fn|fun|func)\s+([A-Za-z_]\w*)`), kind: 'fn', indentedIsMethod: true },
  { pattern: new RegExp(String.raw`^\s*${MODIFIERS}(?:module|interface|struct|trait|protocol|enum|record|type)\s+([A-Z]\w*)`), kind: 'type' },
  { pattern: /^\s*sub\s+([A-Za-z_]\w*)/, kind: 'fn' },
  { pattern: /^\s*([A-Za-z_][\w-]*)\s*\(\)\s*\{/, kind: 'fn' },
  { pattern: new RegExp(VARIABLE + FUNCTION_VALUE), kind: 'fn' },
  { pattern: new RegExp(VARIABLE + String.raw`\s*[:=\[*A-Za-z_]`), kind: 'const' },
  // Python and Ruby: an unindented assignment to a name (as the Python parser reads a module-level one).
  { pattern: /^([A-Za-z_]\w*)\s*(?::[^=]*)?=(?![=~])/, kind: 'const', paths: /\.(?:py|pyi|rb)$/ },
];

const MAX_DEFINITION_LINE = 1000;
const EXPORT_MARK = /^\s*(?:export|pub\b|public)\b/;
const HIDDEN_MARK = /^\s*(?:[\w()]+\s+)*?(?:private|protected|static|local)\s/;

export function heuristicSymbols(path: string, text: string): SymbolDef[] {
  const lines = text.split('\n');
  const rules = RULES.filter((rule) => rule.paths === undefined || rule.paths.test(path));
  const found: SymbolDef[] = [];
  lines.forEach((lineText, index) => {
    // A definition line is short; a minified or data line is not worth matching (and bounds every regex here).
    if (lineText.length > MAX_DEFINITION_LINE) return;
    for (const rule of rules) {
      const match = rule.pattern.exec(lineText);
      if (!match) continue;
      const name = match[1]!;
      const indented = /^\s/.test(lineText);
      const kind: SymbolKind = rule.indentedIsMethod && indented ? 'method' : rule.kind;
      found.push({
        name,
        kind,
        line: index + 1,
        endLine: guessEndLine(lines, index),
        signature: signatureOf(lineText),
        exported: isExported(lineText, name),
        heuristic: true,
      });
      break;
    }
  });
  return found;
}

function isExported(lineText: string, name: string): boolean {
  if (EXPORT_MARK.test(lineText)) return true;
  if (/^func\s/.test(lineText)) return /^[A-Z]/.test(name);
  return !HIDDEN_MARK.test(lineText) && !name.startsWith('_');
}

function indentOf(line: string): number {
  return /^[ \t]*/.exec(line)![0].length;
}

function guessEndLine(lines: string[], start: number): number {
  const indent = indentOf(lines[start]!);
  let last = start;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    if (indentOf(line) <= indent) {
      return /^\s*(?:end\b|[}\])])/.test(line) ? i + 1 : last + 1;
    }
    last = i;
  }
  return last + 1;
}
