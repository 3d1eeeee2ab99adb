/**
 * Where a git command runs (docs/noide-protocol.md#git): the repo holding `path` — the repo's folder or
 * one inside it, root-relative or absolute, contained by real path — at its top level (`rev-parse
 * --show-toplevel`), so every command sees paths as status prints them.
 */
import { WorkspaceError } from '../../../../core/errors/workspace-error.ts';
import type { WorkspaceContext } from '../../../../runtime/context.ts';
import { GitFolderError, type GitOutput, type GitRunner } from '../../../../core/git/git-runner.ts';
import { decodeGitText, textRule } from '../../../../core/git/git-output-rules.ts';
import type { RepoGit } from '../../../../core/git/repo-git.ts';
import { TopLevelCache } from '../../../../core/git/top-level-cache.ts';
import { RpcError } from '../../command.ts';

export interface GitFolder {
  /** The folder asked for (absolute real path). */
  readonly folder: string;
  /** Top levels git gave for folders (per runner, so per app). */
  readonly topLevels: TopLevelCache;
  run(args: readonly string[], cwd?: string): Promise<GitOutput>;
}

export interface GitRepo extends GitFolder, RepoGit {
  /** The repo's top level (absolute real path). */
  readonly root: string;
  run(args: readonly string[], cwd?: string): Promise<GitOutput>;
}

/** `path`, checked and resolved, with a runner there; `git` is refused where the runtime has none. */
export async function gitFolder(ctx: WorkspaceContext, path: string, signal?: AbortSignal): Promise<GitFolder> {
  const git = requireGit(ctx);
  let folder: string;
  try {
    folder = await ctx.resolve(path);
  } catch (error) {
    if (error instanceof WorkspaceError && error.code === 'outside-workspace') throw new RpcError('path is outside the workspace');
    throw error;
  }
  let topLevels = topLevelCaches.get(git);
  if (topLevels === undefined) topLevelCaches.set(git, (topLevels = new TopLevelCache(ctx.fs)));
  return { folder, topLevels, run: (args, cwd = folder) => git.run(args, { cwd, ...(signal ? { signal } : {}) }) };
}

const topLevelCaches = new WeakMap<GitRunner, TopLevelCache>();

/** The repo holding `path`, or undefined when `path` is in none (`rev-parse --is-inside-work-tree` is not true). */
export async function gitRepoAt(ctx: WorkspaceContext, path: string, signal?: AbortSignal): Promise<GitRepo | undefined> {
  const at = await gitFolder(ctx, path, signal);
  const known = await at.topLevels.lookup(at.folder);
  if (known !== undefined) return inRepo(at, known); // a folder in a work tree (never in its `.git`)
  // One process for both answers (a spawn from the daemon costs 10–30 ms): `true\n<top level>\n`. Inside a `.git`
  // folder it prints `false` and fails; outside a repo it fails; a `path` that is no folder is in no repo either.
  const probe = await notAFolderAs(at.run(['rev-parse', '--is-inside-work-tree', '--show-toplevel']), undefined);
  if (probe === undefined) return undefined;
  const text = decodeGitText(probe.stdout);
  if (probe.code !== 0 || !text.startsWith('true\n')) return undefined;
  const root = text.slice('true\n'.length).replace(/\n$/, '');
  at.topLevels.remember(at.folder, root);
  return inRepo(at, root);
}

/**
 * The repo holding the folder, for the commands that answer git's own error outside a repo (docs/noide-protocol.md#git):
 * `rev-parse --show-toplevel`'s, e.g. `fatal: not a git repository (or any of the parent directories): .git`,
 * or inside a `.git` folder `fatal: this operation must be run in a work tree`.
 */
export async function repoOf(at: GitFolder): Promise<GitRepo> {
  const known = await at.topLevels.lookup(at.folder);
  if (known !== undefined) return inRepo(at, known);
  const top = await notAFolderAs(at.run(['rev-parse', '--show-toplevel']), undefined);
  // git's own words outside a repo: a `path` that is missing or a file is no repo (git cannot even start there).
  if (top === undefined) throw new RpcError(NOT_A_GIT_REPOSITORY);
  const answer = textRule(top);
  if (!answer.ok) throw new RpcError(answer.text);
  const root = decodeGitText(top.stdout).replace(/\n$/, '');
  at.topLevels.remember(at.folder, root);
  return inRepo(at, root);
}

/** What git prints outside a repository, verbatim: the answer of the commands that have no exception for it. */
export const NOT_A_GIT_REPOSITORY = 'fatal: not a git repository (or any of the parent directories): .git';

/** `run`'s output, or `fallback` when git could not start because its folder is missing or not a folder. */
export async function notAFolderAs<T>(run: Promise<GitOutput>, fallback: T): Promise<GitOutput | T> {
  try {
    return await run;
  } catch (error) {
    if (error instanceof GitFolderError) return fallback;
    throw error;
  }
}

function inRepo(at: GitFolder, root: string): GitRepo {
  return { folder: at.folder, topLevels: at.topLevels, root, run: (args, cwd = root) => at.run(args, cwd) };
}

function requireGit(ctx: WorkspaceContext): GitRunner {
  if (ctx.git === undefined) throw new RpcError('git is not available on this runtime');
  return ctx.git;
}
