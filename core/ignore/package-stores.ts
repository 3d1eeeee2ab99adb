/**
 * What tooling ignores whatever `.gitignore` says: git's own folder and the folders package managers install
 * into. These rules cannot be negated by a `!pattern` (a `.gitignore` that re-includes `node_modules` still
 * does not make a walk of forty thousand installed files a good idea); `GET /workspace/children` opens them.
 *
 * The list (folders only, matched by name at any depth unless a parent name is given):
 * - version-control internals: `.git` (also as a file: a worktree's `.git` names its git dir), `.hg`, `.svn`
 *   (what VS Code's default `files.exclude` hides too);
 * - `node_modules` (npm, yarn classic, pnpm), `bower_components` (Bower), `jspm_packages` (jspm);
 * - `.pnpm-store` (pnpm's content-addressed store when it lives in the project);
 * - `.yarn/cache` and `.yarn/unplugged` (Yarn Berry's zip cache and unpacked packages; `.yarn/releases`,
 *   `.yarn/plugins` and `.yarn/sdks` are committed source, so they are not on the list);
 * - `__pypackages__` (PEP 582);
 * - Python virtual environments, recognised by the `pyvenv.cfg` PEP 405 puts in their top folder, whatever
 *   the folder is called (`.venv`, `venv`, `env`, …), rather than by guessing from names.
 */

/** Version-control internals, ignored whatever their kind. */
const VCS_INTERNALS: ReadonlySet<string> = new Set(['.git', '.hg', '.svn']);

/** Folder names ignored wherever they appear (also what the OS watcher never enters: core/changes). */
export const STORE_FOLDERS: ReadonlySet<string> = new Set([
  'node_modules',
  'bower_components',
  'jspm_packages',
  '.pnpm-store',
  '__pypackages__',
]);

/** Folder names ignored only inside a folder of the given name: `.yarn/cache`, `.yarn/unplugged`. */
const NESTED_STORE_FOLDERS: ReadonlyMap<string, string> = new Map([
  ['cache', '.yarn'],
  ['unplugged', '.yarn'],
]);

/** The file that makes a folder a Python virtual environment (PEP 405). */
export const VIRTUALENV_MARKER = 'pyvenv.cfg';

/**
 * Whether the entry `name` inside a folder called `parentName` ("" for the root) is always ignored.
 * `isDir` is the entry's kind (a symlink counts as what it points to).
 */
export function isAlwaysIgnored(name: string, isDir: boolean, parentName: string): boolean {
  if (VCS_INTERNALS.has(name)) return true;
  if (!isDir) return false;
  if (STORE_FOLDERS.has(name)) return true;
  const parent = NESTED_STORE_FOLDERS.get(name);
  return parent !== undefined && parent === parentName;
}

/** Whether a folder listing shows a virtual environment: it holds a regular `pyvenv.cfg`. */
export function holdsVirtualenvMarker(entries: readonly { name: string; type: string }[]): boolean {
  return entries.some((entry) => entry.name === VIRTUALENV_MARKER && entry.type === 'file');
}
