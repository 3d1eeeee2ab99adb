/**
 * How the git engine runs git (docs/noide-protocol.md#git): the interface core/ and handlers speak, with the
 * Node implementation in adapters/git/git-process.ts (a process per call, from an argument array, never a shell).
 * Edge-clean: a runtime without processes (Workers) has no GitRunner, and the git commands say so.
 */

/** What one git process gave: its exit code and its output, stdout as bytes (diffs and file text are exact). */
export interface GitOutput {
  code: number;
  stdout: Uint8Array;
  stderr: string;
}

export interface GitRunOptions {
  /** The folder git runs in (`git -C DIR`): an absolute real path inside the workspace. */
  cwd: string;
  /** Extra environment for this call (e.g. GIT_ALLOW_PROTOCOL for a clone), on top of the runner's own. */
  env?: Readonly<Record<string, string>>;
  /** Stop it early (a closed socket, a shutdown): the process group is killed and the call rejects. */
  signal?: AbortSignal;
  /** Each stderr chunk as it arrives (a clone's `--progress` shown in a terminal); the answer still has it all. */
  onStderr?: (chunk: Uint8Array) => void;
}

/**
 * Runs git. Resolves with any exit code (a failing git is an answer, not an error); rejects with a GitRunError when
 * git could not be started (`Failed to run git: <reason>`) or ran past its deadline (`git <sub> timed out after
 * <N> s`, the whole process group killed).
 */
export interface GitRunner {
  run(args: readonly string[], options: GitRunOptions): Promise<GitOutput>;
}

export class GitRunError extends Error {
  override readonly name: string = 'GitRunError';
}

/**
 * git could not start because the folder it was to run in is not one: gone (`missing`), a file, or under a file
 * (`not-a-folder`). The OS refuses such a working directory before git runs, so git never gets to say "not a git
 * repository"; each command answers for it in its own words (docs/noide-protocol.md#git).
 */
export class GitFolderError extends GitRunError {
  override readonly name = 'GitFolderError';
  constructor(
    readonly folder: string,
    readonly reason: 'missing' | 'not-a-folder',
  ) {
    super(reason === 'missing' ? `no such folder: ${folder}` : `not a folder: ${folder}`);
  }
}
