/**
 * The git commands' result shapes (docs/noide-protocol.md#git-commands): every field always present. Path-keyed maps are
 * null-prototype records, so a file named `__proto__` or `constructor` is a key like any other.
 */

export interface GitFileStat {
  insertions: number;
  deletions: number;
}

export interface GitStatus {
  branch: string;
  ahead: number;
  behind: number;
  modified: string[];
  staged: string[];
  untracked: string[];
  deleted: string[];
  unmerged: string[];
  /** The index column's letter: A D R C T, else M; an unmerged path's raw X. */
  stagedDetails: Record<string, string>;
  /** The worktree column's letter: M, D, U (untracked); an unmerged path's raw Y. */
  worktreeDetails: Record<string, string>;
  worktreeStats: Record<string, GitFileStat>;
  stagedStats: Record<string, GitFileStat>;
}

export interface GitCommitInfo {
  hash: string;
  shortHash: string;
  message: string;
  author: string;
  /** Author time, Unix seconds. */
  time: number;
  insertions: number;
  deletions: number;
}

export interface GitStashInfo {
  ref: string;
  message: string;
  /** Unix seconds. */
  time: number;
}

/** An empty path-keyed record without a prototype (see the module comment). */
export function pathRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

export interface GitBranches {
  current: string;
  branches: string[];
  remotes: string[];
}
