/**
 * The YAML frontmatter subset SKILL.md files use (docs/ori.md#skills, `GET /api/skills`). Pure: text in, keys out.
 *
 * Pinned rules (docs/ori.md#skills):
 * - Frontmatter is the block between a first line `---` and the next line that is `---`. An unterminated
 *   block means no frontmatter at all. (Trailing spaces/tabs on either delimiter are tolerated; a UTF-8 BOM
 *   before the first line is skipped.) Line breaks are LF, CRLF or a lone CR, as in YAML.
 * - A key line matches `^[A-Za-z][\w-]*:` at column 0. Indented lines never start a key, so nested mappings
 *   and the continuation lines of a multi-line plain value are ignored; other lines (comments, lists) too.
 * - Values may be single-quoted (`''` is a quote) or double-quoted (YAML backslash escapes); a quote left
 *   open on its line, or followed by anything but a comment, keeps the value as written.
 * - `|` (literal) and `>` (folded) take the indented lines that follow. Literal joins them with '\n';
 *   folded joins adjacent lines with a space, an empty line becomes '\n', and more-indented lines keep their
 *   breaks (YAML's folding). Chomping as YAML: clip by default (exactly one trailing '\n' when there is
 *   content), `-` strips it, `+` keeps every trailing line break. An explicit indentation digit is honoured.
 * Decisions beyond the pins, all as YAML does: a plain value loses a trailing ` # comment`; surrounding
 * whitespace is trimmed; a repeated key keeps its last value. Values are always strings (no null/bool).
 */

const LINE_BREAK = /\r\n|\r|\n/;
const DELIMITER = /^---[ \t]*$/;
const KEY_LINE = /^([A-Za-z][\w-]*):(.*)$/;
/** `|`, `>-`, `|+`, `>2`, `|2-`, `>-2`, optionally followed by a comment. */
const BLOCK_HEADER = /^([|>])(?:([+-])([1-9])?|([1-9])([+-])?)?(?:[ \t]+#.*)?$/;
const BLANK = /^[ \t]*$/;

type Chomping = 'clip' | 'strip' | 'keep';

/** The frontmatter's keys and string values, or null when the text has no (terminated) frontmatter. */
export function parseFrontmatter(text: string): Map<string, string> | null {
  const lines = (text.startsWith('\uFEFF') ? text.slice(1) : text).split(LINE_BREAK);
  if (!DELIMITER.test(lines[0] ?? '')) return null;
  let end = -1;
  for (let i = 1; i < lines.length; i++) {
    if (DELIMITER.test(lines[i]!)) {
      end = i;
      break;
    }
  }
  if (end < 0) return null;
  return parseBlock(lines.slice(1, end));
}

function parseBlock(lines: string[]): Map<string, string> {
  const values = new Map<string, string>();
  let i = 0;
  while (i < lines.length) {
    const match = KEY_LINE.exec(lines[i]!);
    i++;
    if (!match) continue;
    const key = match[1]!;
    const raw = match[2]!.trim();
    const header = BLOCK_HEADER.exec(raw);
    if (!header) {
      values.set(key, scalar(raw));
      continue;
    }
    // A block scalar owns every following line that is blank or indented.
    const start = i;
    while (i < lines.length && (BLANK.test(lines[i]!) || indentOf(lines[i]!) > 0)) i++;
    const chompSign = header[2] ?? header[5];
    const digit = header[3] ?? header[4];
    values.set(
      key,
      blockScalar(lines.slice(start, i), {
        folded: header[1] === '>',
        chomping: chompSign === '-' ? 'strip' : chompSign === '+' ? 'keep' : 'clip',
        indent: digit === undefined ? undefined : Number(digit),
      }),
    );
  }
  return values;
}

function indentOf(line: string): number {
  let n = 0;
  while (n < line.length && (line[n] === ' ' || line[n] === '\t')) n++;
  return n;
}

/** YAML block scalar content (the same folding and chomping rules js-yaml implements). */
function blockScalar(
  lines: string[],
  style: { folded: boolean; chomping: Chomping; indent: number | undefined },
): string {
  let indent = style.indent;
  if (indent === undefined) {
    const first = lines.find((line) => !BLANK.test(line));
    indent = first === undefined ? 0 : indentOf(first);
  }
  let result = '';
  let emptyLines = 0;
  let didReadContent = false;
  let atMoreIndented = false;
  for (const line of lines) {
    if (BLANK.test(line)) {
      emptyLines++;
      continue;
    }
    if (indent === 0 || indentOf(line) < indent) break; // a less-indented line ends the block
    const content = line.slice(indent);
    if (!style.folded) {
      result += '\n'.repeat(didReadContent ? 1 + emptyLines : emptyLines);
    } else if (content[0] === ' ' || content[0] === '\t') {
      // More-indented lines are not folded: their line breaks (and the empty lines around them) stay.
      atMoreIndented = true;
      result += '\n'.repeat(didReadContent ? 1 + emptyLines : emptyLines);
    } else if (atMoreIndented) {
      atMoreIndented = false;
      result += '\n'.repeat(emptyLines + 1);
    } else if (emptyLines === 0) {
      if (didReadContent) result += ' ';
    } else {
      result += '\n'.repeat(emptyLines);
    }
    result += content;
    didReadContent = true;
    emptyLines = 0;
  }
  if (style.chomping === 'keep') result += '\n'.repeat(didReadContent ? 1 + emptyLines : emptyLines);
  else if (style.chomping === 'clip' && didReadContent) result += '\n';
  return result;
}

/** A one-line value: quoted or plain. `raw` is already trimmed. */
function scalar(raw: string): string {
  if (raw.startsWith("'")) return singleQuoted(raw) ?? raw;
  if (raw.startsWith('"')) return doubleQuoted(raw) ?? raw;
  return stripComment(raw);
}

/** Only a comment (or nothing) may follow a closing quote. */
function isTail(rest: string): boolean {
  return BLANK.test(rest) || /^[ \t]+#/.test(rest);
}

function singleQuoted(raw: string): string | null {
  let out = '';
  for (let i = 1; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch !== "'") {
      out += ch;
    } else if (raw[i + 1] === "'") {
      out += "'";
      i++;
    } else {
      return isTail(raw.slice(i + 1)) ? out : null;
    }
  }
  return null; // unterminated
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  '\t': '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
};
const HEX_ESCAPE_LENGTH: Record<string, number> = { x: 2, u: 4, U: 8 };

function doubleQuoted(raw: string): string | null {
  let out = '';
  for (let i = 1; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === '"') return isTail(raw.slice(i + 1)) ? out : null;
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const next = raw[i + 1];
    if (next === undefined) return null;
    const simple = SIMPLE_ESCAPES[next];
    const hexLength = HEX_ESCAPE_LENGTH[next];
    if (simple !== undefined) {
      out += simple;
      i++;
    } else if (hexLength !== undefined && /^[0-9A-Fa-f]+$/.test(raw.slice(i + 2, i + 2 + hexLength))) {
      const codePoint = parseInt(raw.slice(i + 2, i + 2 + hexLength), 16);
      out += codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : '\ufffd';
      i += 1 + hexLength;
    } else {
      out += '\\' + next; // not an escape YAML knows: keep it as written
      i++;
    }
  }
  return null; // unterminated
}

/** A plain value ends before ` #` (YAML comment); a value that is only a comment is empty. */
function stripComment(raw: string): string {
  const hash = raw.search(/(?:^|[ \t])#/);
  return hash < 0 ? raw : raw.slice(0, hash).trimEnd();
}
