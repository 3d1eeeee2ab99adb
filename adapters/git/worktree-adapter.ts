/**
 * What the agent copies need from git: a worktree per agent on its own branch. Type-only and edge-clean; the
 * Node implementation (git-worktree-adapter.ts) runs the git CLI and arrives through the app's options. On a
 * runtime without it, agents get plain copies of the tree instead. The full git adapter comes later; this is
 * the small part agent copies need now.
 */
export interface GitRepository {
  /** The repository's top folder (a real path). */
  toplevel: string;
}

export interface WorktreeAdapter {
  /** The repository whose work tree holds `dir`, if it is one with at least one commit; else undefined. */
  repositoryOf(dir: string): Promise<GitRepository | undefined>;
  /**
   * Adds a worktree at `path` (which must not exist yet) on `branch`: a new branch from HEAD, or the branch
   * itself when it exists already (an agent re-created under the same id resumes its kept branch).
   */
  add(repository: GitRepository, path: string, branch: string): Promise<{ resumed: boolean }>;
  /**
   * Removes the worktree at `path`, uncommitted changes included, and deletes `branch` unless it holds
   * commits not merged into HEAD (`git branch -d` semantics: committed work is never thrown away).
   */
  remove(repository: GitRepository, path: string, branch: string): Promise<{ branchKept: boolean }>;
  /** Adds `pattern` to the repository's local, uncommitted exclude file ($GIT_DIR/info/exclude) once. */
  exclude(repository: GitRepository, pattern: string): Promise<void>;
}
