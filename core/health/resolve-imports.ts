/**
 * Resolving an import to a file in the scope (docs/intentic-projects.md#health, `modules`): a relative specifier as
 * written, then with each extension, then as a folder's `index.*`; a `.js`-family extension may name the `.ts`
 * file beside it (TypeScript's ESM convention). A workspace package's name (a package.json in the scope) resolves
 * to its `main`, else its `src/index.*`; `name/sub` to `sub` inside the package. Anything else (npm packages,
 * Node builtins, paths leaving the root) resolves to nothing.
 */
import { normalize } from '../../adapters/fs/posix-path.ts';

const EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.vue', '.json'];
const JS_TO_TS: Record<string, string[]> = {
  '.js': ['.ts', '.tsx'], '.jsx': ['.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'],
};

export interface WorkspacePackage {
  /** Root-relative folder ('' for the root). */
  dir: string;
  main?: string;
}

export function resolveImport(
  fromPath: string,
  specifier: string,
  files: ReadonlySet<string>,
  packages: ReadonlyMap<string, WorkspacePackage>,
): string | undefined {
  if (specifier === '.' || specifier === '..' || specifier.startsWith('./') || specifier.startsWith('../')) {
    const slash = fromPath.lastIndexOf('/');
    return resolvePath(slash < 0 ? specifier : fromPath.slice(0, slash) + '/' + specifier, files);
  }
  const segments = specifier.split('/');
  const nameLength = specifier.startsWith('@') ? 2 : 1;
  const name = segments.slice(0, nameLength).join('/');
  const found = packages.get(name);
  if (!found) return undefined;
  const inside = (path: string) => (found.dir === '' ? path : `${found.dir}/${path}`);
  const subpath = segments.slice(nameLength).join('/');
  if (subpath !== '') return resolvePath(inside(subpath), files);
  if (found.main) {
    const main = resolvePath(inside(found.main), files);
    if (main) return main;
  }
  return resolvePath(inside('src/index'), files);
}

/** `base` (root-relative, maybe with `./` and `..`) as a file of `files`, by the candidates above. */
function resolvePath(base: string, files: ReadonlySet<string>): string | undefined {
  if (escapes(base)) return undefined;
  const path = normalize('/' + base).slice(1);
  if (path === '') return undefined;
  if (files.has(path)) return path;
  const dot = path.lastIndexOf('.');
  const extension = dot > path.lastIndexOf('/') ? path.slice(dot) : '';
  for (const ts of JS_TO_TS[extension] ?? []) {
    const candidate = path.slice(0, dot) + ts;
    if (files.has(candidate)) return candidate;
  }
  for (const ext of EXTENSIONS) if (files.has(path + ext)) return path + ext;
  for (const ext of EXTENSIONS) if (files.has(`${path}/index${ext}`)) return `${path}/index${ext}`;
  return undefined;
}

/** Whether a relative path climbs above its start (`../x` from the root). */
function escapes(base: string): boolean {
  let depth = 0;
  for (const segment of base.split('/')) {
    if (segment === '..') depth--;
    else if (segment !== '' && segment !== '.') depth++;
    if (depth < 0) return true;
  }
  return false;
}
