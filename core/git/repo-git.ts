import type { GitOutput } from './git-runner.ts';

/**
 * One repository as the git operations see it: git run at its top level (`rev-parse --show-toplevel`), where every
 * `file` argument is relative to, as `git status` prints it (docs/noide-protocol.md#git: all but git_init run there).
 */
export interface RepoGit {
  /** The repo's top level, an absolute real path. */
  readonly root: string;
  run(args: readonly string[]): Promise<GitOutput>;
}

/**
 * The global option every command taking a `file` adds: `*`, `?`, `[`, `:/` and `:(magic)` are plain characters in
 * a pathspec, so `git_add "*.txt"` stages the file of that name, not every text file. Given on the command line, not
 * as GIT_LITERAL_PATHSPECS in the environment: `stash push -u` breaks under the variable (its internal `ls-files`
 * pathspecs).
 */
export const LITERAL = '--literal-pathspecs';
