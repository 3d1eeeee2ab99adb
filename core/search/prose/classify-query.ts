/**
 * How `q` reads a query (docs/intentic-search.md `q`, first fit wins) and what `find` calls a phrase.
 *
 * - `path`: no whitespace, holds `/`, `*` or `?`, and no regex character but those and the ones a path or glob
 *   uses: `.` (every file name has one), `[ ]` and `{ }` (glob classes and alternatives, which `q` runs as a
 *   glob). So `src/app.ts`, `*.test.ts`, `src/*.{ts,js}`, `*.*` are paths; `src/(a|b)` and `a/b+` are not.
 *   One reading of a dot is a regex's own, though: `.*` or `.?` straight after a word character (`foo.*bar`,
 *   `src/a.*`) is "any characters" far more often than a file named `foo.` + glob, so it counts as a regex
 *   character; after `*`, `/` or at the start (`*.*`, `src/.*rc`) it stays a path's dot.
 * - `identifier`: `^[A-Za-z_$][\w$]*([.#][\w$]+)*$` (ASCII, as the seed writes it): `getUserById`,
 *   `Widget.render`, `Foo#bar`, `$el`.
 * - `regex`: no whitespace, a regex character (`. * ? + ( ) [ ] { } | ^ $ \`), and RE2 (the syntax of Rust's
 *   `regex`, as `find` runs it) compiles it.
 * - else `prose`, which is also where a regex that does not compile goes (`(unclosed`, `a\`).
 * "Whitespace" is any `\s`: a tab is as much a word break as a space.
 */
import { RE2JS } from 're2js';

export type QueryKind = 'path' | 'identifier' | 'regex' | 'prose';

const WHITESPACE = /\s/;
const PATH_CUE = /[/*?]/;
/** Regex characters a path or glob never uses. */
const NOT_IN_PATH = /[+()|^$\\]|[\w]\.[*?]/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*([.#][\w$]+)*$/;
const REGEX_CHARACTER = /[.*?+()[\]{}|^$\\]/;

export function classifyQuery(query: string): QueryKind {
  if (WHITESPACE.test(query)) return 'prose';
  if (PATH_CUE.test(query) && !NOT_IN_PATH.test(query)) return 'path';
  if (IDENTIFIER.test(query)) return 'identifier';
  if (REGEX_CHARACTER.test(query) && compilesInRe2(query)) return 'regex';
  return 'prose';
}

/** Characters a phrase never holds: a query with one is a pattern someone meant. */
const NOT_IN_PHRASE = /[|()[\]*+?^$\\]/;

/**
 * `find`'s cue to answer semantically: several words and none of `| ( ) [ ] * + ? ^ $ \` once the trailing
 * `?`, `!` and `.` go ("how are irqs routed?" is a question, not a pattern). Surrounding whitespace is ignored
 * (before and after those marks); words are what whitespace separates.
 */
export function isPhrase(query: string): boolean {
  const body = query.trim().replace(/[?!.]+$/, '').trimEnd();
  return !NOT_IN_PHRASE.test(body) && body.split(/\s+/).length >= 2;
}

function compilesInRe2(query: string): boolean {
  try {
    RE2JS.compile(query);
    return true;
  } catch {
    return false;
  }
}
