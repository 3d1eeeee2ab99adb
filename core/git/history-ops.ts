/**
 * The git commands that make or unmake commits and stashes (docs/noide-protocol.md#git-commands): commit and amend, undo,
 * revert, stash push and pop. Answers follow the **text rule**.
 */
import { WorkspaceError } from '../errors/workspace-error.ts';
import { textRule, type GitAnswer } from './git-output-rules.ts';
import type { RepoGit } from './repo-git.ts';

/** The message of every stash the protocol makes (the original's). */
export const STASH_MESSAGE = 'WIP from NoIDE';

/**
 * The rest of the `commit` rule, after checkCommit's shape check: the hex names a commit in this repo
 * (`rev-parse --verify --quiet C^{commit}`; an unknown or ambiguous prefix, a blob or a tree fail), else
 * `Invalid commit` — before the command itself runs.
 */
export async function verifyCommit(git: RepoGit, commit: string): Promise<void> {
  const verified = await git.run(['rev-parse', '--verify', '--quiet', `${commit}^{commit}`]);
  if (verified.code !== 0) throw new WorkspaceError('bad-request', 'Invalid commit');
}

/**
 * `git_commit`: `commit -m M` with M as ONE argument, untrimmed (a message may start with `-` or span lines).
 * `amend`: `commit --amend -m M`, or `--amend --no-edit` when M is blank (keep the message, take what is staged).
 */
export async function commit(git: RepoGit, message: string, amend: boolean): Promise<GitAnswer> {
  const args = !amend ? ['commit', '-m', message] : message.trim() === '' ? ['commit', '--amend', '--no-edit'] : ['commit', '--amend', '-m', message];
  return textRule(await git.run(args));
}

/** `git_undo_commit`: `reset --soft HEAD~1` — the last commit undone, its changes left staged. */
export async function undoCommit(git: RepoGit): Promise<GitAnswer> {
  return textRule(await git.run(['reset', '--soft', 'HEAD~1']));
}

/** `git_revert`: `revert --no-edit C` (C verified) — a new commit undoing C, with git's default message. */
export async function revert(git: RepoGit, commitHash: string): Promise<GitAnswer> {
  return textRule(await git.run(['revert', '--no-edit', commitHash]));
}

/** `git_stash`: `stash push -u -m "WIP from NoIDE"`, untracked files included; `No local changes to save` is ok. */
export async function stash(git: RepoGit): Promise<GitAnswer> {
  return textRule(await git.run(['stash', 'push', '-u', '-m', STASH_MESSAGE]));
}

/** `git_stash_pop`: `stash pop`; with no stash, git's `No stash entries found.` is the error. */
export async function stashPop(git: RepoGit): Promise<GitAnswer> {
  return textRule(await git.run(['stash', 'pop']));
}
