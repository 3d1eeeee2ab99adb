/**
 * The git commands that answer file text and diffs (docs/noide-protocol.md#git-commands): the **content rule**, stdout
 * exactly. Every `file` and `commit` has passed core/git/git-args.ts before these run.
 */
import { contentRule, type GitAnswer } from './git-output-rules.ts';
import { LITERAL, type RepoGit } from './repo-git.ts';

/** `get_git_diff` / `get_git_staged_diff`: the file's unstaged or staged diff; `""` when unchanged or untracked. */
export async function fileDiff(git: RepoGit, file: string, staged: boolean): Promise<GitAnswer> {
  const cached = staged ? ['--cached'] : [];
  return contentRule(await git.run([LITERAL, 'diff', ...cached, '--no-color', '--no-ext-diff', '--', file]));
}

/** `get_git_head_file`: the file as HEAD has it (`show HEAD:F`); without commits, or not in HEAD, git's error. */
export async function headFile(git: RepoGit, file: string): Promise<GitAnswer> {
  const shown = await git.run(['show', `HEAD:${file}`]);
  // A worktree file literally named `HEAD:F` makes the argument ambiguous; `--` settles it. Not always given: with it,
  // git's errors get vaguer (`bad revision 'HEAD:F'` for `path 'F' does not exist in 'HEAD'`, and without commits
  // for `invalid object name 'HEAD'.`).
  if (shown.code !== 0 && shown.stderr.includes('ambiguous argument')) return contentRule(await git.run(['show', `HEAD:${file}`, '--']));
  return contentRule(shown);
}

/** `git_show_index`: the file as the index has it (`show :F`); any git failure is `""` (not staged, no repo). */
export async function indexFile(git: RepoGit, file: string): Promise<string> {
  const answer = contentRule(await git.run(['show', `:${file}`, '--']));
  return answer.ok ? answer.text : '';
}

/** `git_commit_diff`: the commit's message and patch (`show --no-color --no-ext-diff C`); C is a verified commit. */
export async function commitDiff(git: RepoGit, commit: string): Promise<GitAnswer> {
  // `--`: a file in the worktree named like the hash would make git refuse the argument as ambiguous.
  return contentRule(await git.run(['show', '--no-color', '--no-ext-diff', commit, '--']));
}
