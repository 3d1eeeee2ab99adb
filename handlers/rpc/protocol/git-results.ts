/**
 * The results of the git commands (docs/noide-protocol.md#git-commands): three reads answer objects (status,
 * log, stash list, branches); every other command answers git's text. Path-keyed maps are records of any key.
 */
import { z } from 'zod';
import { entry } from './result-entry.ts';

const GIT = 'docs/noide-protocol.md#git-commands';

const fileStat = z.strictObject({ insertions: z.number().int().min(0), deletions: z.number().int().min(0) });
const paths = z.array(z.string().describe('repo-relative, as status prints it'));
const byPath = <S extends z.ZodType>(value: S) => z.record(z.string(), value);

export const gitStatus = z.strictObject({
  branch: z.string(),
  ahead: z.number().int().min(0),
  behind: z.number().int().min(0),
  modified: paths,
  staged: paths,
  untracked: paths,
  deleted: paths,
  unmerged: paths,
  stagedDetails: byPath(z.string().describe("the index column's letter")),
  worktreeDetails: byPath(z.string().describe("the worktree column's letter")),
  worktreeStats: byPath(fileStat),
  stagedStats: byPath(fileStat),
});

export const gitCommitInfo = z.strictObject({
  hash: z.string(),
  shortHash: z.string(),
  message: z.string(),
  author: z.string(),
  time: z.number().int().describe('author time, Unix seconds'),
  insertions: z.number().int().min(0),
  deletions: z.number().int().min(0),
});

export const gitStashInfo = z.strictObject({ ref: z.string(), message: z.string(), time: z.number().int().describe('Unix seconds') });

export const gitBranches = z.strictObject({ current: z.string(), branches: z.array(z.string()), remotes: z.array(z.string()) });

/** git's answer as text: stdout then stderr, trimmed; diffs and file contents exactly as printed. */
const text = () => entry(z.string(), GIT);

export const gitResults = {
  get_git_status: entry(gitStatus, GIT),
  git_log: entry(z.array(gitCommitInfo), GIT),
  git_stash_list: entry(z.array(gitStashInfo), GIT),
  git_init: text(),
  get_git_diff: text(),
  get_git_staged_diff: text(),
  get_git_head_file: text(),
  git_show_index: text(),
  git_commit_diff: text(),
  git_add: text(),
  git_stage_all: text(),
  git_unstage: text(),
  git_unstage_all: text(),
  git_discard: text(),
  git_discard_all: text(),
  git_resolve_conflict: text(),
  git_commit: text(),
  git_undo_commit: text(),
  git_revert: text(),
  git_stash: text(),
  git_stash_pop: text(),
  git_push: text(),
  git_fetch: text(),
  git_pull: text(),
  git_branch_list: entry(gitBranches, GIT),
  git_checkout_branch: text(),
  git_merge: text(),
  git_merge_abort: text(),
};
