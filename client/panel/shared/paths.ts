/**
 * Root-relative paths as the panel keeps them: `/`-separated, no leading `./`, the root itself is `.`.
 */

/** The last part of `path` (`src/a.ts` → `a.ts`). */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** The folder holding `path` (`.` for a top-level entry). */
export function parentPath(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '.' : path.slice(0, slash);
}

/** `path` as a name and the folder it is in, for showing: `src/a.ts` → `{ name: 'a.ts', folder: 'src' }`; top-level: folder `''`. */
export function nameAndFolder(path: string): { name: string; folder: string } {
  const slash = path.lastIndexOf('/');
  return { name: path.slice(slash + 1), folder: slash < 0 ? '' : path.slice(0, slash) };
}

export function joinPath(folder: string, name: string): string {
  return folder === '.' || folder === '' ? name : `${folder}/${name}`;
}

/** True when `path` is `folder` or lies under it (everything is under the root `.`). */
export function isUnder(path: string, folder: string): boolean {
  return folder === '.' || path === folder || path.startsWith(`${folder}/`);
}

/** `absolute` as a root-relative path with `/`, or undefined for the root itself and anything outside it. */
export function relativePath(root: string, absolute: string): string | undefined {
  const base = root.replace(/[\\/]+$/, '');
  const sep = absolute.includes('\\') && !absolute.includes('/') ? '\\' : '/';
  if (!absolute.startsWith(base + sep)) return undefined;
  const rest = absolute.slice(base.length + 1).split(sep).join('/');
  return rest === '' ? undefined : rest;
}

/** A path as the editor keys its tabs: no leading `./`, no trailing `/`. */
export function normalisePath(path: string): string {
  return path.replace(/^(?:\.\/)+/, '').replace(/(.)\/+$/, '$1');
}
