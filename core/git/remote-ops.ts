/**
 * The git commands that talk to a remote (docs/noide-protocol.md#git-commands): plain `push`, `fetch --all --prune` and
 * `pull`, no other flags — the repo's and the user's config decide remote, branch, rebase or merge. The runner's
 * environment keeps them from prompting (missing credentials fail at once) and its 600 s deadline applies.
 */
import { textRule, type GitAnswer } from './git-output-rules.ts';
import type { RepoGit } from './repo-git.ts';

export async function push(git: RepoGit): Promise<GitAnswer> {
  return textRule(await git.run(['push']));
}

export async function fetchAll(git: RepoGit): Promise<GitAnswer> {
  return textRule(await git.run(['fetch', '--all', '--prune']));
}

export async function pull(git: RepoGit): Promise<GitAnswer> {
  return textRule(await git.run(['pull']));
}
