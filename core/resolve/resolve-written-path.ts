/**
 * Intentic's `resolve` (docs/intentic.md#resolve): which workspace file a path written in prose means.
 * Edge-clean: the FileSystem, the tree walk and the ignore rules.
 *
 * 1. The path as written: root-relative, or absolute under the root. If it names a file, that is the answer.
 * 2. Otherwise its tails: `\` read as `/`, `.` segments and empty ones dropped; the whole path, then with 1, 2, …
 *    up to 6 leading segments dropped, never going below 2 segments. The first tail that matches a file's
 *    root-relative path on a segment boundary (`x/src/app.ts` matches `src/app.ts`, `xsrc/app.ts` does not)
 *    wins; among several files, the shallowest, then the shorter path, then the lexically first.
 * A path outside the workspace is not refused: it is prose, and its tails are still looked up (only ever
 * answering files inside the workspace). Nothing found → undefined.
 *
 * The tails are matched against the files the tree walk sees, under its entry budget: ignored folders
 * (node_modules, .git, .gitignore'd ones) are not entered, so a tail never resolves into installed packages;
 * ignored files in folders that are entered do count, and step 1 resolves any existing file, ignored or not.
 * Symlinks are aliases: a tail only ever answers a file at its real location (step 1 answers a path through an
 * in-workspace link as written).
 */
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { isInside } from '../../adapters/fs/posix-path.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import type { IgnoreRules } from '../ignore/ignore-rules.ts';
import type { TreeEntry } from '../tree/tree-entry.ts';
import { workspaceRelative, type TreePlace } from '../tree/tree-place.ts';
import { walkTree } from '../tree/walk-tree.ts';

/** How many leading segments a tail may drop. */
export const MAX_DROPPED_SEGMENTS = 6;
/** A tail never gets shorter than this many segments (one name alone is too ambiguous to mean a file). */
export const MIN_TAIL_SEGMENTS = 2;

export interface ResolveWrittenOptions {
  /** Client path → real path inside the workspace; throws when it leaves it (the view's `resolve`). */
  resolveInside(path: string): Promise<string>;
  rules: IgnoreRules;
  /** Entries the tail walk may look at (ctx.limits.maxSearchEntries). */
  budget: number;
}

/** The root-relative path of the file `written` means, or undefined. */
export async function resolveWrittenPath(
  place: TreePlace,
  written: string,
  options: ResolveWrittenOptions,
): Promise<string | undefined> {
  const slashed = written.replace(/\\/g, '/');
  if (slashed === '' || slashed.includes('\0')) return undefined;
  const asWritten = await existingFile(place, slashed, options);
  if (asWritten !== undefined) return asWritten;

  const tails = tailsOf(slashed);
  if (tails.length === 0) return undefined;
  const name = tails[0]!.slice(tails[0]!.lastIndexOf('/') + 1);
  const candidates = await filesNamed(place, name, options);
  for (const tail of tails) {
    const matches = candidates.filter((path) => path === tail || path.endsWith('/' + tail));
    if (matches.length > 0) return matches.sort(preferred)[0];
  }
  return undefined;
}

/** Step 1: the root-relative path when `slashed`, read as a workspace path, names an existing file. */
async function existingFile(place: TreePlace, slashed: string, options: ResolveWrittenOptions): Promise<string | undefined> {
  const relPath = workspaceRelative(place.root, slashed);
  if (relPath === undefined || relPath === '') return undefined;
  try {
    const real = await options.resolveInside(slashed);
    if (!isInside(place.root, real)) return undefined;
    if (place.excluded !== undefined && isInside(place.excluded, real)) return undefined;
    if ((await place.fs.stat(real)).type !== 'file') return undefined;
    return relPath;
  } catch (error) {
    if (error instanceof WorkspaceError || isFsError(error)) return undefined;
    throw error;
  }
}

/** The tails to try, longest first: "a/b/c/d" → ["a/b/c/d", "b/c/d", "c/d"]. */
export function tailsOf(slashed: string): string[] {
  const segments = slashed.split('/').filter((segment) => segment !== '' && segment !== '.');
  const tails: string[] = [];
  for (let drop = 0; drop <= MAX_DROPPED_SEGMENTS && segments.length - drop >= MIN_TAIL_SEGMENTS; drop++) {
    tails.push(segments.slice(drop).join('/'));
  }
  return tails;
}

/** Root-relative paths of the walked files called `name`, at their real locations (links are aliases: skipped). */
async function filesNamed(place: TreePlace, name: string, options: ResolveWrittenOptions): Promise<string[]> {
  const { tree } = await walkTree(place, {
    budget: options.budget,
    rules: options.rules,
    sizes: false,
    enterLinks: false,
    flagIgnoredFiles: false,
  });
  const found: string[] = [];
  const visit = (entries: readonly TreeEntry[]) => {
    for (const entry of entries) {
      if (entry.type === 'file' && entry.name === name && entry.link === undefined) found.push(entry.path);
      if (entry.children) visit(entry.children);
    }
  };
  visit(tree);
  return found;
}

/** The shallowest, then the shorter, then the lexically first. */
function preferred(a: string, b: string): number {
  const depth = depthOf(a) - depthOf(b);
  if (depth !== 0) return depth;
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

function depthOf(path: string): number {
  let depth = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) depth++;
  return depth;
}
