/**
 * Rust's `regex` (the dialect docs/intentic-search.md and the original NoIDE server use) reads `\w`, `\d` and `\s` as Unicode
 * classes by default; RE2 — and so re2js — reads them as ASCII. So `\wber` would miss `über` and `\d` an Arabic-Indic
 * digit, where ripgrep finds them. This rewrites the three (and their negations) to the Unicode classes they stand
 * for in Rust before RE2 compiles the pattern:
 * - `\w`: Alphabetic, marks, decimal digits, letter numbers, connector punctuation and the joiners (UTS #18 "word");
 * - `\d`: `\p{Nd}`; `\s`: Unicode White_Space, spelt out (RE2 knows categories and scripts, not that property).
 * Inside a class the positive forms are spliced in (`[\w-]`); `\W` and `\S` inside a class have no RE2 spelling (a
 * class cannot hold a negated class) and stay ASCII. `\b`/`\B` stay ASCII too: RE2 has no Unicode word boundary and
 * no lookaround to build one (a known difference; `word` mode is Unicode either way). `\Q…\E` is literal and kept.
 */

const WORD = String.raw`\p{L}\p{M}\p{Nd}\p{Nl}\p{Pc}\x{200C}\x{200D}`;
const DIGIT = String.raw`\p{Nd}`;
const SPACE = String.raw`\t\n\x0B\f\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}`;

const OUTSIDE: Record<string, string> = {
  w: `[${WORD}]`,
  W: `[^${WORD}]`,
  d: DIGIT,
  D: String.raw`\P{Nd}`,
  s: `[${SPACE}]`,
  S: `[^${SPACE}]`,
};
const INSIDE: Record<string, string> = { w: WORD, d: DIGIT, D: String.raw`\P{Nd}`, s: SPACE };

export function unicodePerlClasses(pattern: string): string {
  if (!/\\[wWdDsS]/.test(pattern)) return pattern;
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '\\') {
      const next = pattern[i + 1];
      if (next === undefined) return pattern; // a trailing backslash: RE2 reports it as written
      if (next === 'Q') {
        // Literal up to \E (or the end), copied as it is.
        const end = pattern.indexOf('\\E', i + 2);
        const stop = end < 0 ? pattern.length : end + 2;
        out += pattern.slice(i, stop);
        i = stop - 1;
        continue;
      }
      const replacement = (inClass ? INSIDE : OUTSIDE)[next];
      out += replacement ?? char + next;
      i++;
      continue;
    }
    if (!inClass && char === '[') {
      inClass = true;
      out += char;
      // `[]…]` and `[^]…]`: a `]` first in a class is a literal, and so is a `[:name:]` class kept whole.
      if (pattern[i + 1] === '^') out += pattern[++i]!;
      if (pattern[i + 1] === ']') out += pattern[++i]!;
      continue;
    }
    if (inClass && char === '[' && pattern[i + 1] === ':') {
      const end = pattern.indexOf(':]', i + 2);
      if (end > 0) {
        out += pattern.slice(i, end + 2);
        i = end + 1;
        continue;
      }
    }
    if (inClass && char === ']') inClass = false;
    out += char;
  }
  return out;
}
