/**
 * The `repo` argument of the project calls (docs/intentic-projects.md#repo): `root` (the workspace), a
 * repo id (a root-relative folder holding `.git`, ≤ 4 segments) or a top-level folder. A segment not matching
 * `^[a-zA-Z0-9][a-zA-Z0-9._-]*$` is BAD_REQUEST; no such folder NOT_FOUND — both name the value. Folders are checked
 * with lstat segment by segment, so a link never makes a scope (nothing outside the workspace is reached).
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { lstatOrUndefined } from '../tree-ops/transfer-checks.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import { isRepoFolderName, MAX_SEGMENTS } from '../git/discover-repos.ts';

export interface RepoScope {
  /** As the client named it: `root`, a repo id, or a top-level folder's name. */
  id: string;
  /** The folder, an absolute path under the root (the root itself for `root`). */
  dir: string;
  /** The folder relative to the root (`""` for `root`): what terminal names and root-relative paths start from. */
  relative: string;
}

const SEGMENT = /^[a-zA-Z0-9][a-zA-Z0-9._-]*$/;
const RESERVED_TOP_LEVEL = new Set(['root', 'refs', 'public']);

function holdsGit(type: string | undefined): boolean {
  return type === 'dir' || type === 'file';
}

export async function resolveRepoScope(fs: FileSystem, root: string, repo: string): Promise<RepoScope> {
  if (repo === 'root') return { id: 'root', dir: root, relative: '' };
  const segments = repo.split('/');
  if (!segments.every((segment) => SEGMENT.test(segment))) throw new WorkspaceError('bad-request', `invalid repo "${repo}"`);
  if (segments.length > MAX_SEGMENTS || !segments.every(isRepoFolderName)) throw noRepo(repo);
  // Discovery never lists a nested id under a reserved top-level name (core/git/discover-repos.ts).
  if (segments.length > 1 && RESERVED_TOP_LEVEL.has(segments[0]!)) throw noRepo(repo);
  let dir = root;
  for (const [index, segment] of segments.entries()) {
    dir = `${dir === '/' ? '' : dir}/${segment}`;
    if ((await lstatOrUndefined(fs, dir))?.type !== 'dir') throw noRepo(repo);
    // A top-level folder is a scope of its own; deeper, only a repo (its `.git`, a folder or a worktree's file)
    // that no repo above it holds: discovery does not enter a repo, so a repo inside one has no id.
    const last = index === segments.length - 1;
    if (segments.length > 1 && holdsGit((await lstatOrUndefined(fs, `${dir}/.git`))?.type) !== last) throw noRepo(repo);
  }
  return { id: repo, dir, relative: repo };
}

function noRepo(repo: string): WorkspaceError {
  return new WorkspaceError('not-found', `no repo named "${repo}"`);
}
