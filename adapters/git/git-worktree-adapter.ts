import { appendFile, mkdir, readFile, realpath, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { GitError, runGit, type GitResult } from './run-git.ts';
import type { GitRepository, WorktreeAdapter } from './worktree-adapter.ts';

export interface GitWorktreeAdapterOptions {
  /** How long one git call may take before it is killed (a checkout of a large tree takes a while). */
  deadlineMs?: number;
}

const DEFAULT_DEADLINE_MS = 120_000;

/**
 * Agent worktrees through the git CLI. Calls run one at a time per adapter: concurrent `git worktree`
 * commands on one repository contend for the same lock files and fail instead of waiting.
 */
export class GitWorktreeAdapter implements WorktreeAdapter {
  private readonly deadlineMs: number;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: GitWorktreeAdapterOptions = {}) {
    this.deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  }

  repositoryOf(dir: string): Promise<GitRepository | undefined> {
    return this.serial(async () => {
      // A folder not on this disk (a root served from another backend) is in no repository git could act on;
      // git would not even start there.
      if (!(await stat(dir).then((found) => found.isDirectory(), () => false))) return undefined;
      const top = await this.git(['rev-parse', '--show-toplevel'], dir);
      if (top.code !== 0) return undefined;
      // An unborn branch has nothing to check out: such a root gets a plain copy.
      if ((await this.git(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], dir)).code !== 0) return undefined;
      return { toplevel: await realpath(top.stdout.trim()) };
    });
  }

  add(repository: GitRepository, path: string, branch: string): Promise<{ resumed: boolean }> {
    return this.serial(async () => {
      const cwd = repository.toplevel;
      // Forget worktrees whose folders are gone, or their branches stay "checked out" there.
      await this.git(['worktree', 'prune'], cwd);
      const exists = (await this.git(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], cwd)).code === 0;
      const args = exists ? ['worktree', 'add', path, branch] : ['worktree', 'add', '-b', branch, path, 'HEAD'];
      this.check(await this.git(args, cwd), args);
      return { resumed: exists };
    });
  }

  remove(repository: GitRepository, path: string, branch: string): Promise<{ branchKept: boolean }> {
    return this.serial(async () => {
      const cwd = repository.toplevel;
      const removed = await this.git(['worktree', 'remove', '--force', '--force', path], cwd);
      // Not (or no longer) a registered worktree: the caller removes the folder; drop git's stale record.
      if (removed.code !== 0) await this.git(['worktree', 'prune'], cwd);
      const deleted = await this.git(['branch', '-d', branch], cwd);
      return { branchKept: deleted.code !== 0 };
    });
  }

  exclude(repository: GitRepository, pattern: string): Promise<void> {
    return this.serial(async () => {
      const args = ['rev-parse', '--git-path', 'info/exclude'];
      const printed = this.check(await this.git(args, repository.toplevel), args).stdout.trim();
      const file = isAbsolute(printed) ? printed : join(repository.toplevel, printed);
      const current = await readFile(file, 'utf8').catch(() => '');
      if (current.split('\n').includes(pattern)) return;
      await mkdir(dirname(file), { recursive: true });
      await appendFile(file, `${current === '' || current.endsWith('\n') ? '' : '\n'}${pattern}\n`);
    });
  }

  private git(args: readonly string[], cwd: string): Promise<GitResult> {
    return runGit(args, cwd, this.deadlineMs);
  }

  private check(result: GitResult, args: readonly string[]): GitResult {
    if (result.code !== 0) {
      throw new GitError(args, result, `git ${args.slice(0, 2).join(' ')} failed: ${result.stderr.trim() || `exit ${result.code}`}`);
    }
    return result;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.catch(() => {}).then(work);
    this.queue = next;
    return next;
  }
}
