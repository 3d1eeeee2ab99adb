/**
 * The `include` parameter of `/workspace/search` (docs/intentic-search.md "`include`"): a comma list of path parts, each
 * turned into globs over the root-relative path, and the predicate that says whether a file is searched.
 *
 * Grammar: split on commas outside `{…}`/`[…]`, trim, drop empty parts; `!part` excludes; strip trailing `/`.
 * `/p` or `./p` is anchored at the root (`./p`, `./p/**`); `.ext` is an extension (`**` + `/*.ext`, and that
 * + `/**`); any other `p` matches at any depth (`**` + `/p`, and that + `/**`). A file is searched if it matches
 * an inclusion (or there is none) and no exclusion.
 *
 * Glob semantics (picomatch, posix build so the host OS never matters): case-sensitive, `*` `?` within one
 * segment, `**` + `/` zero or more whole segments, `[…]` a class (`[!…]` negated), `{a,b}` alternatives, dot
 * files matched like any other. Nothing else is special: extglobs are off and `( ) |` (picomatch would read
 * them as regex groups) are escaped to stand for themselves, as is a `{` or `[` that is never closed — file
 * names such as `notes (draft).md` match literally.
 */
import picomatch from 'picomatch/posix.js';

export interface IncludeGlobs {
  /** A file must match one of these (when there are any). */
  include: string[];
  /** A file matching one of these is not searched. */
  exclude: string[];
}

/** Whether a root-relative path (with '/') is searched; undefined from `includeFilter` means "every file". */
export type PathFilter = (path: string) => boolean;

// `posix` makes `[!…]` a negated class, as in every shell (picomatch otherwise reads the `!` as a member).
const PICOMATCH_OPTIONS = { dot: true, noextglob: true, nocase: false, posix: true } as const;

/** The globs `include` stands for, in the order its parts were given. */
export function includeGlobs(include: string | undefined): IncludeGlobs {
  const globs: IncludeGlobs = { include: [], exclude: [] };
  if (include === undefined) return globs;
  for (const raw of splitParts(include)) {
    let part = raw.trim();
    const excluded = part.startsWith('!');
    if (excluded) part = part.slice(1).trim();
    part = part.replace(/\/+$/, '');
    if (part === '' || part === '.') continue; // "/" and "./" name the root: everything
    const pattern = part.startsWith('./')
      ? part
      : part.startsWith('/')
        ? '.' + part
        : part.startsWith('.')
          ? '**/*' + part
          : '**/' + part;
    (excluded ? globs.exclude : globs.include).push(pattern, pattern + '/**');
  }
  return globs;
}

/** The predicate for `include`, or undefined when it filters nothing (absent, `!`, ` , `). */
export function includeFilter(include: string | undefined): PathFilter | undefined {
  const globs = includeGlobs(include);
  if (globs.include.length === 0 && globs.exclude.length === 0) return undefined;
  const included = anyOf(globs.include);
  const excluded = anyOf(globs.exclude);
  return (path) => (included === undefined || included(path)) && (excluded === undefined || !excluded(path));
}

function anyOf(globs: readonly string[]): PathFilter | undefined {
  if (globs.length === 0) return undefined;
  return picomatch(globs.map(literalSpecials), PICOMATCH_OPTIONS);
}

/** Splits on commas that are not inside `{…}` or `[…]`; a backslash escapes the next character. */
function splitParts(include: string): string[] {
  const parts: string[] = [];
  let braces = 0;
  let inClass = false;
  let start = 0;
  for (let i = 0; i < include.length; i++) {
    const c = include[i];
    if (c === '\\') i++;
    else if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '[') inClass = include.indexOf(']', i + 2) >= 0; // "[]…]": a leading ']' is a member
    else if (c === '{') braces++;
    else if (c === '}' && braces > 0) braces--;
    else if (c === ',' && braces === 0) {
      parts.push(include.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(include.slice(start));
  return parts;
}

/**
 * Escapes what picomatch would give a meaning docs/intentic-search.md does not: `( ) |` anywhere outside a class, and a
 * `{` without its `}` or a `[` without its `]` (picomatch would match nothing or read on past it).
 */
function literalSpecials(glob: string): string {
  let out = '';
  const openBraces: number[] = [];
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '\\') {
      out += glob.slice(i, i + 2);
      i++;
    } else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close < 0) out += '\\[';
      else {
        out += glob.slice(i, close + 1);
        i = close;
      }
    } else if (c === '{') {
      openBraces.push(out.length);
      out += c;
    } else if (c === '}' && openBraces.length > 0) {
      openBraces.pop();
      out += c;
    } else if (c === '(' || c === ')' || c === '|') out += '\\' + c;
    else out += c;
  }
  // Unclosed braces, last first so earlier offsets stay valid.
  for (let k = openBraces.length - 1; k >= 0; k--) {
    const at = openBraces[k]!;
    out = out.slice(0, at) + '\\' + out.slice(at);
  }
  return out;
}
