/**
 * The checks of `POST /workspace/repos` (Intentic clone, docs/intentic.md#clone) that need no git: the repo's
 * name and the clone URL's form. Both come before anything is created or run.
 *
 * - The name is one folder name that discovery lists (core/git/discover-repos.ts: `^[a-zA-Z0-9][a-zA-Z0-9._-]*$`,
 *   so never `.`, `..`, a path or an option) and not one Intentic reserves.
 * - The URL is a remote, never a local path: `https://`, `http://`, `ssh://`, `git://`, or scp-like
 *   `[user@]host:path` (no `://`). `file://`, `ext::` (runs a command), a path, or anything starting `-` (an option
 *   to git) is refused here, and git itself is run with GIT_ALLOW_PROTOCOL limited to the same four.
 */
import { WorkspaceError } from '../errors/workspace-error.ts';
import { isRepoFolderName } from './discover-repos.ts';

const RESERVED_NAMES = new Set(['intent', 'desired-state', 'app', 'root', 'refs', 'public']);

/** The protocols git may use for a clone (its GIT_ALLOW_PROTOCOL). */
export const CLONE_PROTOCOLS = 'https:http:ssh:git';

const SCHEME_URL = /^(?:https?|ssh|git):\/\/[^\s/?#]+/i;
/** `[user@]host:path`: a host of letters, digits, dots and dashes, then `:` and a path not starting with `/`… */
const SCP_URL = /^(?:[A-Za-z0-9._~-]+@)?[A-Za-z0-9][A-Za-z0-9.-]*:(?!\/\/)[^\s]+$/;

export function checkRepoName(name: string): string {
  if (!isRepoFolderName(name) || RESERVED_NAMES.has(name)) {
    throw new WorkspaceError('bad-request', 'invalid or reserved repo name');
  }
  return name;
}

export function checkCloneUrl(url: string): string {
  const trimmed = url.trim();
  // Control characters never belong in a URL git is handed (and a newline would split a credential helper's input).
  // A backslash is a Windows path (`C:\repo`), which git elsewhere reads as the ssh host `C`.
  const clean = !/[\u0000-\u001f\u007f\\]/.test(trimmed) && !trimmed.startsWith('-');
  if (!clean || trimmed.includes('::') || !(SCHEME_URL.test(trimmed) || (!trimmed.includes('://') && SCP_URL.test(trimmed)))) {
    throw new WorkspaceError(
      'bad-request',
      'unsupported clone URL: use https://, http://, ssh://, git:// or [user@]host:path (local paths, file:// and ext:: are refused)',
    );
  }
  return trimmed;
}
