/**
 * Intentic's clone (`POST /workspace/repos {name, cloneUrl, branch?}`, docs/intentic.md#clone), over the
 * GitRunner: the checks in the seed's order (name, then whether it exists or is being cloned, then the URL, then
 * the branch), all before git runs; then `git clone [--branch B] -- URL <hidden temp folder>` in the root, renamed
 * to `<name>` once complete, so the workspace never shows half a repo under its name, and a failed clone leaves
 * nothing. git may use only the remote protocols (GIT_ALLOW_PROTOCOL), and the machine's own credentials (the
 * runner's environment: no prompt, so missing ones fail at once with git's text).
 *
 * Progress: where the daemon has terminals, the clone runs with `--progress` and its stderr is shown live in the
 * named terminal `clone-<name>` (an output-only session: core/terminals/output-feed.ts), which a UI lists and
 * attaches to like any other; killing that terminal stops the clone. It stays after the clone ends (exit code
 * git's), until the next clone of that name replaces it.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import { shellQuote } from '../shell-quote.ts';
import { stagingName } from '../tree-ops/staging-name.ts';
import { lstatOrUndefined } from '../tree-ops/transfer-checks.ts';
import { checkCloneUrl, checkRepoName, CLONE_PROTOCOLS } from './clone-request.ts';
import { refName } from './git-args.ts';
import { textRule } from './git-output-rules.ts';
import { GitRunError, type GitRunner } from './git-runner.ts';
import { createOutputFeed, type OutputFeed } from '../terminals/output-feed.ts';
import { TERMINAL_NAME_PATTERN, type TerminalManager } from '../terminals/terminal-manager.ts';

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
    /** Where progress is shown (absent on runtimes without terminals). */
    private readonly terminals?: TerminalManager,
  ) {}

  /**
   * The `clone-<name>` terminal, fresh: a finished one of an earlier clone of that name is replaced (a running one
   * cannot be: that clone holds the name). None without terminals, or for a name too long for a terminal's.
   */
  private async progressTerminal(name: string, url: string, branch: string | undefined): Promise<OutputFeed | undefined> {
    const terminal = `clone-${name}`;
    if (this.terminals === undefined || !TERMINAL_NAME_PATTERN.test(terminal)) return undefined;
    if (this.terminals.get(terminal)?.info().running === false) await this.terminals.remove(terminal);
    const feed = createOutputFeed();
    const command = shown(['git', 'clone', ...(branch === undefined ? [] : ['--branch', branch]), '--', withoutUserinfo(url), name]);
    try {
      this.terminals.start({ name: terminal, command, cwd: this.root, process: feed.process });
    } catch {
      return undefined; // the name is taken by someone's own terminal, or too many run: clone without showing progress
    }
    feed.write(`$ ${command}\n`);
    return feed;
  }

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
    let progress: OutputFeed | undefined;
    try {
      progress = await this.progressTerminal(name, url, branch);
      const args = ['clone', ...(progress ? ['--progress'] : []), ...(branch === undefined ? [] : ['--branch', branch]), '--', url, temp];
      const output = await this.git
        .run(args, {
          cwd: this.root,
          env: { GIT_ALLOW_PROTOCOL: CLONE_PROTOCOLS },
          ...(progress && { signal: progress.signal, onStderr: (chunk) => progress?.write(chunk) }),
        })
        .catch((error: unknown) => {
          if (error instanceof GitRunError) progress?.write(`\n${error.message}\n`);
          progress?.end(null);
          throw error;
        });
      progress?.end(output.code);
      const answer = textRule({ ...output, stderr: withoutProgress(output.stderr) });
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

/** The lines a terminal would show of text with `\r` progress updates: each line's last update. */
/** A URL's `user:password@` is not for a terminal others may watch. */
function withoutUserinfo(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1***@');
}

/** A display form of the command, its arguments quoted as a shell would need them. */
function shown(args: readonly string[]): string {
  return args.map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : shellQuote(arg))).join(' ');
}

function withoutProgress(stderr: string): string {
  return stderr
    .split('\n')
    .map((line) => line.slice(line.lastIndexOf('\r', line.length - 2) + 1).replace(/\r$/, ''))
    .join('\n');
}

function alreadyExists(name: string): WorkspaceError {
  return new WorkspaceError('conflict', `"${name}" already exists in the workspace`);
}
