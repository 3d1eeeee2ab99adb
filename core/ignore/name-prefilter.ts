/**
 * Which names a rules file could possibly match, from its patterns' last segments: a walk asks it before it
 * asks the `ignore` matcher, which tries every pattern's regular expression on every entry (on the kernel tree
 * that was most of a first query's walk: ~130 patterns at the root, most of them `*.ext`, against 78 000 files).
 *
 * Why it is sound: a pattern matches a path only if its last segment matches the path's last name (`*`, `?` and
 * classes never match a '/'; a pattern's earlier segments match the folders above). So a name that no last
 * segment can match is matched by no pattern of the file itself — only through a folder above, which the walk
 * asks about separately (core/ignore/ignore-rules.ts `verdict`).
 *
 * Each last segment gives the cheapest necessary condition it can: its exact text (no wildcard), else the
 * literal it starts with, else the literal it ends with, else its longest literal run. Anything this does not
 * read with certainty (a trailing or leading space, an unterminated or unusual `[...]`, a lone trailing `\`, a
 * `**` in the last segment) makes every name a candidate: the prefilter may only ever say "maybe".
 */

export interface NamePrefilter {
  /** False only when no pattern of the file can match an entry named `name` (at any depth). */
  mayMatch(name: string): boolean;
}

const ANY: NamePrefilter = { mayMatch: () => true };

/** One pattern's last segment as literal runs and wildcards (undefined: not read with certainty). */
type Token = { literal: string } | { wild: true };

export function namePrefilter(text: string): NamePrefilter {
  const exact = new Set<string>();
  const prefixes = new ByLength();
  const suffixes = new ByLength();
  const inner: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line === '' || line.startsWith('#')) continue;
    const condition = conditionOf(line);
    if (condition === undefined) return ANY;
    if (condition.kind === 'exact') exact.add(condition.text);
    else if (condition.kind === 'prefix') prefixes.add(condition.text);
    else if (condition.kind === 'suffix') suffixes.add(condition.text);
    else inner.push(condition.text);
  }
  const innerRuns = [...new Set(inner)];
  return {
    mayMatch(name) {
      if (exact.has(name) || prefixes.hasPrefixOf(name) || suffixes.hasSuffixOf(name)) return true;
      for (const run of innerRuns) if (name.includes(run)) return true;
      return false;
    },
  };
}

interface Condition {
  kind: 'exact' | 'prefix' | 'suffix' | 'inner';
  text: string;
}

/** The necessary condition one pattern line puts on a name; undefined when every name must be a candidate. */
function conditionOf(line: string): Condition | undefined {
  // Trailing spaces are trimmed unless escaped, leading ones are kept: not worth reading, so any space at an end
  // (and a '\r' left by an old Mac file) makes everything a candidate.
  if (/^\s|\s$/.test(line)) return undefined;
  let pattern = line.startsWith('!') ? line.slice(1) : line;
  if (pattern.endsWith('/') && !pattern.endsWith('\\/')) pattern = pattern.slice(0, -1);
  const tokens = lastSegmentTokens(pattern);
  if (tokens === undefined || tokens.length === 0) return undefined;
  if (tokens.every((token) => 'literal' in token)) {
    return { kind: 'exact', text: tokens.map((token) => (token as { literal: string }).literal).join('') };
  }
  const first = tokens[0]!;
  if ('literal' in first) return { kind: 'prefix', text: first.literal };
  const last = tokens[tokens.length - 1]!;
  if ('literal' in last) return { kind: 'suffix', text: last.literal };
  let longest = '';
  for (const token of tokens) if ('literal' in token && token.literal.length > longest.length) longest = token.literal;
  return longest === '' ? undefined : { kind: 'inner', text: longest };
}

/** The last '/'-separated segment of a pattern as tokens (adjacent literals joined); undefined if unsure. */
function lastSegmentTokens(pattern: string): Token[] | undefined {
  let tokens: Token[] = [];
  let literal = '';
  const flush = () => {
    if (literal !== '') tokens.push({ literal });
    literal = '';
  };
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '\\') {
      if (i + 1 >= pattern.length) return undefined;
      const next = pattern[++i]!;
      if (next === '/') return undefined;
      literal += next;
    } else if (char === '/') {
      literal = '';
      tokens = [];
    } else if (char === '*') {
      if (pattern[i + 1] === '*') return undefined; // `**` in the last segment: any depth, any name
      flush();
      tokens.push({ wild: true });
    } else if (char === '?') {
      flush();
      tokens.push({ wild: true });
    } else if (char === '[') {
      const end = pattern.indexOf(']', i + 1);
      // Only plain classes (`[ch]`, `[0-9]`, `[!a-z]`) are read; `[]a]`, `[a/b]`, escapes inside: unsure.
      if (end < 0 || !/^[!^]?[A-Za-z0-9._-]+$/.test(pattern.slice(i + 1, end))) return undefined;
      flush();
      tokens.push({ wild: true });
      i = end;
    } else {
      literal += char;
    }
  }
  flush();
  return tokens;
}

/** Strings grouped by length, to test whether any is a prefix or suffix of a name with one lookup per length. */
class ByLength {
  private readonly byLength = new Map<number, Set<string>>();

  add(text: string): void {
    let set = this.byLength.get(text.length);
    if (set === undefined) this.byLength.set(text.length, (set = new Set()));
    set.add(text);
  }

  hasPrefixOf(name: string): boolean {
    for (const [length, set] of this.byLength) if (length <= name.length && set.has(name.slice(0, length))) return true;
    return false;
  }

  hasSuffixOf(name: string): boolean {
    for (const [length, set] of this.byLength) if (length <= name.length && set.has(name.slice(name.length - length))) return true;
    return false;
  }
}
