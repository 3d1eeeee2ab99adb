/**
 * Intentic's clone (`POST /workspace/repos {name, cloneUrl, branch?}`, seeds/002-git.md "Clone"), over the
 * GitRunner: the checks in the seed's order (name, then whether it exists or is being cloned, then the URL, then
 * the branch), all before git runs; then `git clone [--branch B] -- URL <hidden temp folder>` in the root, renamed
 * to `<name>` once complete, so the workspace never shows half a repo under its name, and a failed clone leaves
 * nothing. git may use only the remote protocols (GIT_ALLOW_PROTOCOL), and the machine's own credentials (the
 * runner's environment: no prompt, so missing ones fail at once with git's text).
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { WorkspaceError } from '../../runtime/errors/workspace-error.ts';
import { stagingName } from '../tree-ops/staging-name.ts';
import { lstatOrUndefined } from '../tree-ops/transfer-checks.ts';
import { checkCloneUrl, checkRepoName, CLONE_PROTOCOLS } from './clone-request.ts';
import { refName } from './git-args.ts';
import { textRule } from './git-output-rules.ts';
import { GitRunError, type GitRunner } from './git-runner.ts';

export interface CloneRequest {
  name: string;
  cloneUrl: string;
  branch?: string | undefined;
}

export class RepoCloner {
  /** Names being cloned now: a second clone of one is a CONFLICT, not a race for the folder. */
  private readonly running = new Set<string>();

  constructor(
    private readonly fs: FileSystem,
    /** The workspace root's real path. */
    private readonly root: string,
    private readonly git: GitRunner,
  ) {}

  async clone(request: CloneRequest): Promise<{ name: string; path: string }> {
    const name = checkRepoName(request.name);
    const target = `${this.root}/${name}`;
    if (this.running.has(name) || (await lstatOrUndefined(this.fs, target))) throw alreadyExists(name);
    const url = checkCloneUrl(request.cloneUrl);
    let branch: string | undefined;
    if (request.branch !== undefined) {
      branch = refName(request.branch);
      if (branch === undefined) throw new WorkspaceError('bad-request', 'invalid branch name');
    }
    this.running.add(name);
    const temp = stagingName(this.root, `clone-${name}`);
    try {
      const args = ['clone', ...(branch === undefined ? [] : ['--branch', branch]), '--', url, temp];
      const output = await this.git.run(args, { cwd: this.root, env: { GIT_ALLOW_PROTOCOL: CLONE_PROTOCOLS } });
      const answer = textRule(output);
      if (!answer.ok) throw new WorkspaceError('bad-request', answer.text || `git clone failed (exit ${output.code})`);
      if (await lstatOrUndefined(this.fs, target)) throw alreadyExists(name); // made meanwhile by someone else
      await this.fs.rename(temp, target);
      return { name, path: name };
    } catch (error) {
      if (error instanceof GitRunError) throw new WorkspaceError('bad-request', error.message);
      throw error;
    } finally {
      this.running.delete(name);
      await this.fs.remove(temp, { recursive: true }).catch(() => {}); // gone already when renamed
    }
  }
}

function alreadyExists(name: string): WorkspaceError {
  return new WorkspaceError('conflict', `"${name}" already exists in the workspace`);
}
