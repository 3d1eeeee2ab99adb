/**
 * Intentic's sync (`POST /workspace/sync`, docs/intentic.md#sync): every discovered repo, in parallel, is
 * fetched from `origin` and fast-forwarded to its upstream when that is safe — never touching a dirty tree or a
 * branch with commits of its own. The steps per repo, in the seed's order: is there an `origin`; `fetch --quiet
 * origin`; is there an upstream (`@{u}`); `rev-list --left-right --count @{u}...HEAD` (behind, ahead); `status
 * --porcelain`; `merge --ff-only --quiet @{u}`.
 *
 * **Ours:** a step that fails (a fetch with no network or credentials, a merge refused because another git holds
 * the index lock) is the seed contract's seventh status, `error`, with git's text as `message`: the repo is left as
 * it was, and the other repos still sync.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { discoverRepos } from './discover-repos.ts';
import { decodeGitText, textRule } from './git-output-rules.ts';
import { GitRunError, type GitOutput, type GitRunner } from './git-runner.ts';

export type RepoSync =
  | { repo: string; status: 'no-remote' | 'current' | 'skipped' }
  | { repo: string; status: 'dirty'; behind: number }
  | { repo: string; status: 'diverged'; ahead: number; behind: number }
  | { repo: string; status: 'updated'; behind: number; head: string }
  | { repo: string; status: 'error'; message: string };

export class RepoSyncer {
  /** Repos being synced now: a second sync of one meanwhile reports it `skipped`. */
  private readonly running = new Set<string>();

  constructor(
    private readonly fs: FileSystem,
    /** The workspace root's real path. */
    private readonly root: string,
    private readonly git: GitRunner,
  ) {}

  async syncAll(options: { exclude?: readonly string[] } = {}): Promise<RepoSync[]> {
    const repos = await discoverRepos(this.fs, this.root, options);
    return Promise.all(repos.map((repo) => this.sync(repo)));
  }

  private async sync(repo: string): Promise<RepoSync> {
    if (this.running.has(repo)) return { repo, status: 'skipped' };
    this.running.add(repo);
    try {
      return await this.steps(repo);
    } catch (error) {
      if (error instanceof GitRunError) return { repo, status: 'error', message: error.message };
      throw error;
    } finally {
      this.running.delete(repo);
    }
  }

  private async steps(repo: string): Promise<RepoSync> {
    const run = (args: string[]) => this.git.run(args, { cwd: `${this.root}/${repo}` });
    const remotes = await run(['remote']);
    if (remotes.code !== 0 || !lines(remotes).includes('origin')) return { repo, status: 'no-remote' };
    const fetched = await run(['fetch', '--quiet', 'origin']);
    if (fetched.code !== 0) return failed(repo, fetched);
    const upstream = await run(['rev-parse', '--verify', '--quiet', '@{u}']);
    if (upstream.code !== 0) return { repo, status: 'no-remote' };
    const counts = await run(['rev-list', '--left-right', '--count', '@{u}...HEAD']);
    if (counts.code !== 0) return failed(repo, counts);
    const [behind = 0, ahead = 0] = decodeGitText(counts.stdout).trim().split(/\s+/).map(Number);
    if (behind === 0) return { repo, status: 'current' };
    const porcelain = await run(['--no-optional-locks', 'status', '--porcelain']); // never rewrites the index (see STATUS_ARGS)
    if (porcelain.code !== 0) return failed(repo, porcelain);
    if (decodeGitText(porcelain.stdout).trim() !== '') return { repo, status: 'dirty', behind };
    if (ahead > 0) return { repo, status: 'diverged', ahead, behind };
    const merged = await run(['merge', '--ff-only', '--quiet', '@{u}']);
    if (merged.code !== 0) return failed(repo, merged);
    const head = await run(['rev-parse', '--short', 'HEAD']);
    return { repo, status: 'updated', behind, head: decodeGitText(head.stdout).trim() };
  }
}

function lines(output: GitOutput): string[] {
  return decodeGitText(output.stdout).split('\n').map((line) => line.trim());
}

function failed(repo: string, output: GitOutput): RepoSync {
  return { repo, status: 'error', message: textRule(output).text || `git exited ${output.code}` };
}
