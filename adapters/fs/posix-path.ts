/**
 * Pure POSIX path helpers (no `node:path`, so handlers and the Workers bundle can use them).
 * All functions work on '/'-separated strings and never touch storage.
 */

/** Splits into non-empty segments ("/a//b/" → ["a", "b"]). */
export function segments(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

/** Lexically normalises: folds ".", "..", repeated and trailing slashes. ".." above "/" stays at "/". */
export function normalize(path: string): string {
  const absolute = path.startsWith('/');
  const out: string[] = [];
  for (const seg of segments(path)) {
    if (seg === '.') continue;
    if (seg === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!absolute) out.push('..');
      continue;
    }
    out.push(seg);
  }
  const joined = out.join('/');
  if (absolute) return '/' + joined;
  return joined === '' ? '.' : joined;
}

export function join(...parts: string[]): string {
  return normalize(parts.filter((p) => p !== '').join('/'));
}

export function dirname(path: string): string {
  const n = normalize(path);
  if (n === '/') return '/';
  const i = n.lastIndexOf('/');
  if (i < 0) return '.';
  return i === 0 ? '/' : n.slice(0, i);
}

export function basename(path: string): string {
  const n = normalize(path);
  if (n === '/') return '';
  return n.slice(n.lastIndexOf('/') + 1);
}

/** The extension with its dot, lower-cased ("a/B.PNG" → ".png"; "Makefile" and ".bashrc" → ""). */
export function extname(path: string): string {
  const base = basename(path);
  const i = base.lastIndexOf('.');
  return i <= 0 ? '' : base.slice(i).toLowerCase();
}

/** True when `path` is `root` or below it. Both must be normalised absolute paths. */
export function isInside(root: string, path: string): boolean {
  if (root === '/') return path.startsWith('/');
  return path === root || path.startsWith(root + '/');
}

/** `path` relative to `root` with '/' ("" for the root itself). Both normalised absolute; path inside root. */
export function relativeTo(root: string, path: string): string {
  if (path === root) return '';
  return root === '/' ? path.slice(1) : path.slice(root.length + 1);
}
