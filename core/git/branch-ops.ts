/**
 * The git commands over branches (docs/noide-protocol.md#git-commands): list, check out (with the
 * remote-tracking rules), merge, abort a merge. `name` / `fromRef` have passed checkBranchName / checkFromRef.
 */
import { decodeGitText, textRule, type GitAnswer } from './git-output-rules.ts';
import type { GitBranches } from './git-shapes.ts';
import type { RepoGit } from './repo-git.ts';

// Full name, then short name: a remote's `*/HEAD` is recognised by its full name (`refs/remotes/origin/HEAD`),
// since its short form is `origin` in some git versions and `origin/HEAD` in others.
const REF_FORMAT = '--format=%(refname)%00%(refname:short)';

/**
 * `git_branch_list`: local branches (refs/heads) and remote-tracking ones (refs/remotes, minus every `*\/HEAD`), by
 * `%(refname:short)` in git's order; current is `symbolic-ref --short HEAD`, `HEAD` when detached. A repo without
 * commits lists nothing and names its unborn branch (the original failed there).
 */
export async function branchList(git: RepoGit): Promise<GitBranches> {
  const [heads, remotes, current] = await Promise.all([
    git.run(['for-each-ref', REF_FORMAT, 'refs/heads']),
    git.run(['for-each-ref', REF_FORMAT, 'refs/remotes']),
    git.run(['symbolic-ref', '--short', 'HEAD']),
  ]);
  return {
    current: current.code === 0 ? decodeGitText(current.stdout).trim() : 'HEAD',
    branches: shortNames(heads.code === 0 ? heads.stdout : undefined, () => true),
    remotes: shortNames(remotes.code === 0 ? remotes.stdout : undefined, (full) => !full.endsWith('/HEAD')),
  };
}

function shortNames(stdout: Uint8Array | undefined, keep: (full: string) => boolean): string[] {
  if (stdout === undefined) return [];
  const names: string[] = [];
  for (const line of decodeGitText(stdout).split('\n')) {
    const [full, short] = line.split('\0');
    if (full === undefined || short === undefined || full === '') continue;
    if (keep(full)) names.push(short);
  }
  return names;
}

async function isCommit(git: RepoGit, ref: string): Promise<boolean> {
  return (await git.run(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])).code === 0;
}

/** The part after the first `/`: `origin/feature/x` → `feature/x`. */
function afterRemote(name: string): string {
  return name.slice(name.indexOf('/') + 1);
}

/**
 * `git_checkout_branch`:
 * - `create` → `checkout -b N`.
 * - N has a `/` and `refs/remotes/N` is a commit → track it under the part after the first `/`.
 * - else `checkout N --` (the `--` makes N a revision only: the original, without it, restored a FILE named N when
 *   no branch was); failing, track the first of N (when it has a `/`) or `origin/N` that is a commit, else
 *   answer that checkout's error.
 * Tracking is `checkout -b L --track S`, else `checkout -b L S`, else the first of those errors.
 */
export async function checkoutBranch(git: RepoGit, name: string, create: boolean): Promise<GitAnswer> {
  if (create) return textRule(await git.run(['checkout', '-b', name]));
  if (name.includes('/') && (await isCommit(git, `refs/remotes/${name}`))) return track(git, afterRemote(name), name);
  const plain = textRule(await git.run(['checkout', name, '--']));
  if (plain.ok) return plain;
  const candidates = name.includes('/') ? [{ local: afterRemote(name), start: name }] : [];
  candidates.push({ local: name, start: `origin/${name}` });
  for (const { local, start } of candidates) {
    if (await isCommit(git, start)) return track(git, local, start);
  }
  return plain;
}

async function track(git: RepoGit, local: string, start: string): Promise<GitAnswer> {
  const tracked = textRule(await git.run(['checkout', '-b', local, '--track', start]));
  if (tracked.ok) return tracked;
  const started = textRule(await git.run(['checkout', '-b', local, start]));
  return started.ok ? started : tracked;
}

/**
 * `git_merge`: `merge --no-edit R`, exit status ignored: always ok with stdout then stderr, so the `CONFLICT …` and
 * `Automatic merge failed` lines reach the UI, which then reads status for the unmerged paths.
 */
export async function merge(git: RepoGit, fromRef: string): Promise<string> {
  const output = await git.run(['merge', '--no-edit', fromRef]);
  return textRule({ ...output, code: 0 }).text;
}

/** `git_merge_abort`: `merge --abort`. */
export async function mergeAbort(git: RepoGit): Promise<GitAnswer> {
  return textRule(await git.run(['merge', '--abort']));
}
