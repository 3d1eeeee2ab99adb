import { execFile } from 'node:child_process';

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

export class GitError extends Error {
  override readonly name = 'GitError';
  constructor(
    readonly args: readonly string[],
    readonly result: GitResult | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** Output beyond this is a misuse (these are plumbing calls that print a line or two). */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

/**
 * Runs `git` with an argument array (never a shell, so no argument is ever interpreted), in `cwd`, and
 * resolves with its exit code and output; a non-zero exit is a result, not an error. It is killed (SIGKILL)
 * past `deadlineMs`, which rejects with a GitError, as does a git that cannot be started. Prompts are off:
 * a git that would ask for credentials fails instead of waiting forever.
 */
export function runGit(args: readonly string[], cwd: string, deadlineMs: number): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      {
        cwd,
        timeout: deadlineMs,
        killSignal: 'SIGKILL',
        maxBuffer: MAX_OUTPUT_BYTES,
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' },
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        const result = { code: 0, stdout, stderr };
        if (!error) return resolve(result);
        const failure = error as NodeJS.ErrnoException & { code?: number | string; killed?: boolean };
        if (failure.killed) {
          return reject(new GitError(args, undefined, `git ${args[0]} did not finish within ${deadlineMs} ms`));
        }
        if (typeof failure.code === 'number') return resolve({ ...result, code: failure.code });
        reject(new GitError(args, undefined, `cannot run git: ${failure.message}`));
      },
    );
  });
}
