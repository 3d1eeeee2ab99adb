import { isFsError } from '../../adapters/fs/fs-error.ts';
import { isInside, normalize } from '../../adapters/fs/posix-path.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';

/**
 * The argument rules of docs/noide-protocol.md#git (`file`, `commit`, `name`, `fromRef`): each returns the
 * cleaned value or throws `bad-request` with the table's exact message. They run before any git process, so a
 * bad argument never reaches git — also for the commands where a git failure would be answered with `[]` or `""`.
 *
 * `path` (the repo folder) is not here: it is a workspace path, decided by core/paths/resolve-inside-root.ts.
 */

/**
 * `file`: a repo-root-relative path as `git status` prints it (an untracked folder keeps its trailing `/`), returned
 * unchanged. Refused: not a string, empty, absolute, a NUL byte, the root itself (`.`, `./`, `a/..`), leaving the
 * root (`..`, `a/../..`), or any `.git` segment (case-insensitively, as git's own index check does: `.GIT` is the
 * repository on a case-insensitive disk).
 *
 * A leading `-` is a legal file name: commands pass files after `--` or glued into `HEAD:F` / `:F`, never where git
 * would read an option. Backslashes and other control characters are ordinary file-name bytes on POSIX.
 */
export function checkFile(value: unknown): string {
  if (typeof value !== 'string' || value === '' || value.startsWith('/') || value.includes('\0')) throw invalidFile();
  const parts = value.split('/');
  if (parts.some((part) => part.toLowerCase() === '.git')) throw invalidFile();
  const normal = normalize(value);
  if (normal === '.' || normal === '..' || normal.startsWith('../')) throw invalidFile();
  return value;
}

/** Resolves a path to its real path; rejects when it does not exist (FsError `not-found`, or errno `ENOENT`). */
export type Realpath = (path: string) => Promise<string>;

/**
 * The rest of the `file` rule for a delete (`git_discard` of an untracked entry): the entry's parent folder, by real
 * path, must still be inside the repo root, so `link/x` with `link -> /etc` deletes nothing outside. The entry itself
 * is not resolved: a link is deleted as a link. A parent that does not exist is judged by its nearest existing
 * ancestor (nothing there to delete, and the delete's own error says so). `file` must have passed `checkFile`.
 */
export async function checkFileParentInside(root: string, file: string, realpath: Realpath): Promise<void> {
  const realRoot = await realpath(root);
  const base = realRoot === '/' ? '' : realRoot;
  const parts = normalize(file).split('/');
  parts.pop();
  while (parts.length > 0) {
    let real: string;
    try {
      real = await realpath(`${base}/${parts.join('/')}`);
    } catch (error) {
      if (!isMissing(error)) throw error;
      parts.pop();
      continue;
    }
    if (!isInside(realRoot, real)) throw invalidFile();
    return;
  }
}

/**
 * `commit`: trimmed, 4–64 hex digits (abbreviated to full SHA-256 names), returned trimmed. That it names a commit
 * (`rev-parse --verify --quiet C^{commit}`) is the caller's check, with the same message.
 */
export function checkCommit(value: unknown): string {
  const commit = typeof value === 'string' ? value.trim() : '';
  if (!/^[0-9a-fA-F]{4,64}$/.test(commit)) throw new WorkspaceError('bad-request', 'Invalid commit');
  return commit;
}

/** `name` (a branch to check out or create): `refName`, else `Invalid branch name`. */
export function checkBranchName(value: unknown): string {
  const name = refName(value);
  if (name === undefined) throw new WorkspaceError('bad-request', 'Invalid branch name');
  return name;
}

/** `fromRef` (what `git_merge` merges): `refName`, else `Invalid ref`. */
export function checkFromRef(value: unknown): string {
  const ref = refName(value);
  if (ref === undefined) throw new WorkspaceError('bad-request', 'Invalid ref');
  return ref;
}

// A space, a control character (C0, DEL and C1) or one of ~ ^ : ? * [ \ anywhere.
const FORBIDDEN_CHARACTER = /[\p{Cc} ~^:?*[\\]/u;

/**
 * The `name`/`fromRef` rule, trimmed (undefined when refused), for callers with their own message (clone's
 * `branch`). Refused: empty, a leading `-` (an option), `..`, `//`, `@{`, a space, a control character or
 * `~^:?*[\`, a leading or trailing `/`, a trailing `.` or `.lock`, a segment starting with `.`, or `@` alone.
 * A segment ending in `.lock` (`a.lock/b`) is refused too: git refuses it as well (check-ref-format), and the
 * rule is that checks come before git.
 */
export function refName(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const name = value.trim();
  if (name === '' || name === '@' || name.startsWith('-')) return undefined;
  if (name.includes('..') || name.includes('//') || name.includes('@{')) return undefined;
  if (FORBIDDEN_CHARACTER.test(name)) return undefined;
  if (name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return undefined;
  for (const segment of name.split('/')) {
    if (segment.startsWith('.') || segment.endsWith('.lock')) return undefined;
  }
  return name;
}

function invalidFile(): WorkspaceError {
  return new WorkspaceError('bad-request', 'Invalid file');
}

function isMissing(error: unknown): boolean {
  if (isFsError(error, 'not-found') || isFsError(error, 'not-directory')) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
