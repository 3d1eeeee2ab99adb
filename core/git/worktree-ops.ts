/**
 * The git commands that move changes between the working tree and the index (docs/noide-protocol.md#git-commands): add,
 * stage all, unstage, discard, resolve a conflict. Answers follow the **text rule**; `file` has passed checkFile.
 */
import { textRule, type GitAnswer } from './git-output-rules.ts';
import { checkFileParentInside, type Realpath } from './git-args.ts';
import { LITERAL, type RepoGit } from './repo-git.ts';

/** `git_add`: `add -- F`. */
export async function addFile(git: RepoGit, file: string): Promise<GitAnswer> {
  return textRule(await git.run([LITERAL, 'add', '--', file]));
}

/** `git_stage_all`: `add -A .` — every change under the root, deletions and untracked files included. */
export async function stageAll(git: RepoGit): Promise<GitAnswer> {
  return textRule(await git.run(['add', '-A', '.']));
}

/**
 * `git_unstage`: `reset HEAD -- F`; failing that (no commits yet: there is no HEAD to reset to) `rm --cached -- F`,
 * which takes the file out of the index and leaves it on disk.
 */
export async function unstageFile(git: RepoGit, file: string): Promise<GitAnswer> {
  const reset = await git.run([LITERAL, 'reset', 'HEAD', '--', file]);
  if (reset.code === 0) return textRule(reset);
  return textRule(await git.run([LITERAL, 'rm', '--cached', '--', file]));
}

/** `git_unstage_all`: `reset HEAD`; failing that (no commits) `rm -r --cached .`. */
export async function unstageAll(git: RepoGit): Promise<GitAnswer> {
  const reset = await git.run(['reset', 'HEAD']);
  if (reset.code === 0) return textRule(reset);
  return textRule(await git.run(['rm', '-r', '--cached', '.']));
}

/** What discarding an untracked entry needs from the file system (the workspace's FileSystem). */
export interface DiscardFs {
  realpath: Realpath;
  /** Removes the entry: a folder recursively, a link as a link (never its target). */
  remove(path: string): Promise<void>;
}

/**
 * `git_discard`: a tracked file (`ls-files --error-unmatch -- F` succeeds) gets its index version back
 * (`checkout -- F`, the text rule). Anything else is deleted — an untracked file, an untracked folder `dir/` with
 * everything in it, a link as a link — after checkFileParentInside, so `link/x` with `link -> /etc` deletes nothing
 * outside the repo. A delete answers `""`, or fails `Failed to delete F: <reason>`.
 */
export async function discardFile(git: RepoGit, file: string, fs: DiscardFs): Promise<GitAnswer> {
  const tracked = await git.run([LITERAL, 'ls-files', '--error-unmatch', '--', file]);
  if (tracked.code === 0) return textRule(await git.run([LITERAL, 'checkout', '--', file]));
  await checkFileParentInside(git.root, file, fs.realpath);
  const entry = `${git.root === '/' ? '' : git.root}/${file.replace(/\/+$/, '')}`;
  try {
    await fs.remove(entry);
  } catch (error) {
    return { ok: false, text: `Failed to delete ${file}: ${error instanceof Error ? error.message : String(error)}` };
  }
  return { ok: true, text: '' };
}

/**
 * `git_discard_all`. With a HEAD: `reset`, `reset --hard HEAD`, `clean -fd` → clean's text (the first failing step's
 * error otherwise). Without commits only `reset` runs, which unstages and deletes nothing: `reset --hard` and
 * `clean` there would delete every file of a repo that has never been committed (the original did).
 */
export async function discardAll(git: RepoGit): Promise<GitAnswer> {
  const head = await git.run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  const unstaged = textRule(await git.run(['reset']));
  if (head.code !== 0 || !unstaged.ok) return unstaged;
  const hard = textRule(await git.run(['reset', '--hard', 'HEAD']));
  if (!hard.ok) return hard;
  return textRule(await git.run(['clean', '-fd']));
}

/**
 * `git_resolve_conflict`: takes one side of a conflicted file — `checkout --theirs -- F` when side is `theirs`,
 * `--ours` for anything else — then marks it resolved (`add -- F`) → add's text. A failing checkout is its error.
 */
export async function resolveConflict(git: RepoGit, file: string, side: string): Promise<GitAnswer> {
  const taken = await git.run([LITERAL, 'checkout', side === 'theirs' ? '--theirs' : '--ours', '--', file]);
  if (taken.code !== 0) return textRule(taken);
  return addFile(git, file);
}
