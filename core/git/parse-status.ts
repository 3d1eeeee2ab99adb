import { decodeGitText } from './git-output-rules.ts';
import { pathRecord, type GitFileStat, type GitStatus } from './git-shapes.ts';

/** get_git_status step 2, at the repo root: porcelain v1 with the branch header, NUL-separated, never C-quoted. */
// --no-optional-locks: a status never rewrites the index (git refreshes its stat cache opportunistically). A daemon that
// reads status on every change would otherwise take index.lock under the user's own git, and each rewrite would be a
// git-state change (the change feed) that makes its consumers read status again.
export const STATUS_ARGS: readonly string[] = ['--no-optional-locks', 'status', '-b', '--porcelain', '-z'];

const UNMERGED = new Set(['DD', 'AU', 'UD', 'UA', 'DU', 'AA', 'UU']);
const STAGED_LETTERS = new Set(['A', 'D', 'R', 'C', 'T']);

/**
 * `status -b --porcelain -z` output → GitStatus (docs/noide-protocol.md#git-commands, get_git_status), its stats left `{}` for
 * `withStats`. Entries are `XY PATH\0`; a rename or copy (X or Y is R or C) is `XY NEW\0OLD\0` and is listed
 * under NEW; an untracked folder is `dir/`. Lists keep git's order.
 */
export function parseStatus(stdout: Uint8Array): GitStatus {
  const fields = decodeGitText(stdout).split('\0');
  const status: GitStatus = {
    branch: '',
    ahead: 0,
    behind: 0,
    modified: [],
    staged: [],
    untracked: [],
    deleted: [],
    unmerged: [],
    stagedDetails: pathRecord<string>(),
    worktreeDetails: pathRecord<string>(),
    worktreeStats: pathRecord<GitFileStat>(),
    stagedStats: pathRecord<GitFileStat>(),
  };
  let i = 0;
  if (fields[0]?.startsWith('## ')) Object.assign(status, parseBranchHeader(fields[i++]!.slice(3)));
  for (; i < fields.length; i++) {
    const entry = fields[i]!;
    if (entry.length < 4 || entry[2] !== ' ') continue; // the empty tail after the last NUL
    const x = entry[0]!;
    const y = entry[1]!;
    const path = entry.slice(3);
    if ('RC'.includes(x) || 'RC'.includes(y)) i++; // the OLD path: not listed
    addEntry(status, x, y, path);
  }
  return status;
}

/** The table of step 4, for one entry. */
function addEntry(status: GitStatus, x: string, y: string, path: string): void {
  const xy = x + y;
  if (UNMERGED.has(xy)) {
    status.unmerged.push(path);
    status.stagedDetails[path] = x;
    status.worktreeDetails[path] = y;
    return;
  }
  if (xy === '??') {
    status.untracked.push(path);
    status.worktreeDetails[path] = 'U';
    return;
  }
  if (xy === '!!') return; // ignored: only with --ignored, which we never pass
  if (x !== ' ') {
    status.staged.push(path);
    status.stagedDetails[path] = STAGED_LETTERS.has(x) ? x : 'M';
    if (x === 'D') status.deleted.push(path);
  }
  if (y !== ' ') {
    if (y === 'D') {
      status.deleted.push(path);
      status.worktreeDetails[path] = 'D';
    } else {
      status.modified.push(path);
      status.worktreeDetails[path] = 'M';
    }
  }
}

/**
 * Step 3, the header after `## `: `No commits yet on B` (git before 2.16: `Initial commit on B`) → B, 0/0;
 * else the branch is the text before `...` (`HEAD (no branch)` when detached, kept as git prints it) and the
 * counts come from a trailing `[ahead N]`, `[behind M]` or `[ahead N, behind M]`; `[gone]` and none → 0/0.
 */
export function parseBranchHeader(header: string): Pick<GitStatus, 'branch' | 'ahead' | 'behind'> {
  const unborn = /^(?:No commits yet|Initial commit) on /.exec(header);
  const rest = unborn ? header.slice(unborn[0].length) : header;
  const dots = rest.indexOf('...');
  const branch = dots < 0 ? rest : rest.slice(0, dots);
  if (unborn || dots < 0) return { branch, ahead: 0, behind: 0 };
  // Ref names cannot hold `[` or a space, so a ` [` after the upstream starts the counts.
  const counts = / \[([^\]]*)\]$/.exec(rest.slice(dots + 3))?.[1] ?? '';
  return {
    branch,
    ahead: Number(/\bahead (\d+)/.exec(counts)?.[1] ?? 0),
    behind: Number(/\bbehind (\d+)/.exec(counts)?.[1] ?? 0),
  };
}

/**
 * Step 5: the status with its stats, from `diff --numstat -z` (WORKTREE/STAGED_NUMSTAT_ARGS, parse-numstat.ts);
 * a diff that failed is passed as undefined and gives `{}`. Only listed paths have stats, so a command runs the
 * worktree diff only when `needsWorktreeStats` and the staged one only when `needsStagedStats`: a clean tree costs
 * the status alone.
 */
export function withStats(
  status: GitStatus,
  worktreeStats: Record<string, GitFileStat> | undefined,
  stagedStats: Record<string, GitFileStat> | undefined,
): GitStatus {
  return {
    ...status,
    worktreeStats: worktreeStats ?? pathRecord<GitFileStat>(),
    stagedStats: stagedStats ?? pathRecord<GitFileStat>(),
  };
}

/** Whether `diff --numstat` (worktree against index) can list anything: a modified, deleted or unmerged path. */
export function needsWorktreeStats(status: GitStatus): boolean {
  return status.modified.length > 0 || status.deleted.length > 0 || status.unmerged.length > 0;
}

/** The paths `diff --numstat` can list: modified, deleted (a staged deletion too: harmless) and unmerged ones. */
export function worktreeChangedPaths(status: GitStatus): string[] {
  return [...new Set([...status.modified, ...status.deleted, ...status.unmerged])];
}

/** Whether `diff --cached --numstat` can list anything: a staged or unmerged path. */
export function needsStagedStats(status: GitStatus): boolean {
  return status.staged.length > 0 || status.unmerged.length > 0;
}
