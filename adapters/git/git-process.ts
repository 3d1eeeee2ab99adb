import { spawn, type ChildProcess } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { constants } from 'node:os';
import { GitFolderError, GitRunError, type GitOutput, type GitRunner, type GitRunOptions } from '../../core/git/git-runner.ts';
import { gitEnv } from './git-env.ts';
import { gitSubcommand, gitTimeoutSeconds } from './git-timeout.ts';
import { pinWorkingFolder } from '../fs/node-confinement.ts';

/** stdout past this is no answer a client can use (a diff or a file that large); the process is stopped. */
export const MAX_GIT_STDOUT_BYTES = 64 * 1024 * 1024;
/** stderr is messages; a flood of them (progress with `--progress`) keeps only its last part, where errors are. */
const MAX_GIT_STDERR_BYTES = 1024 * 1024;
/**
 * After git exits, how long its output pipes may stay open. A hook can leave a background job holding them
 * (`ctags -R &` in post-commit); the answer is complete when git is gone, so we stop reading, and the job lives on.
 */
const PIPE_GRACE_MS = 1000;

export interface GitProcessOptions {
  /** The workspace's real path: nothing above it is ever looked at (GIT_CEILING_DIRECTORIES is its parent). */
  root: string;
  /** The deadline per subcommand, in seconds (default: WORKSPACE_GIT_TIMEOUT from the base env, else 120 / 600). */
  timeoutSeconds?: (subcommand: string) => number;
  /** The git executable (default `git`, looked up on the PATH). */
  gitPath?: string;
  /** The environment git inherits (default: the daemon's, read at each call). */
  baseEnv?: NodeJS.ProcessEnv;
  /** The stdout cap in bytes (default 64 MiB). */
  maxStdoutBytes?: number;
  /**
   * The folder git's working folder must be inside when it starts (the root's real path; absent under
   * --unrestricted): a folder traded for a link out since it was checked is `missing` (adapters/fs/node-confinement.ts).
   */
  within?: string;
}

/**
 * The Node GitRunner: a process per call, `spawn(git, args)` from the argument array (never a shell), stdin on
 * /dev/null, in a process group of its own so the deadline, an abort or the output cap kill git together with
 * everything it started (git-remote-https, ssh, hooks): `process.kill(-pid, 'SIGKILL')`.
 *
 * Outcomes: any exit code resolves. A git killed by a signal we did not send (the OOM killer, a user's `kill`)
 * also resolves, with code 128 + the signal's number, the convention of shells and of git itself for its own
 * children, so it reads as a failing git and its stderr is kept. What WE stop rejects with a GitRunError: the
 * deadline (`git <sub> timed out after <N> s`), the signal (`git <sub> was aborted`), the cap; as does a git that
 * cannot be started: a GitFolderError when its folder is missing or not a folder, else `Failed to run git: <reason>`.
 */
export function createGitProcess(options: GitProcessOptions): GitRunner {
  const gitPath = options.gitPath ?? 'git';
  const maxStdoutBytes = options.maxStdoutBytes ?? MAX_GIT_STDOUT_BYTES;
  return {
    run(args, runOptions) {
      const base = options.baseEnv ?? process.env;
      const subcommand = gitSubcommand(args);
      const seconds = options.timeoutSeconds?.(subcommand) ?? gitTimeoutSeconds(subcommand, base);
      return runGitProcess(gitPath, args, runOptions, {
        env: gitEnv(options.root, base, runOptions.env),
        label: subcommand === '' ? 'git' : `git ${subcommand}`,
        seconds,
        maxStdoutBytes,
        within: options.within,
      });
    },
  };
}

interface ProcessLimits {
  env: Record<string, string>;
  /** `git <sub>`, for messages. */
  label: string;
  seconds: number;
  maxStdoutBytes: number;
  within: string | undefined;
}

function runGitProcess(gitPath: string, args: readonly string[], options: GitRunOptions, limits: ProcessLimits): Promise<GitOutput> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(new GitRunError(`${limits.label} was aborted`));
  return new Promise<GitOutput>((resolve, reject) => {
    let child: ChildProcess & { stdout: NonNullable<ChildProcess['stdout']>; stderr: NonNullable<ChildProcess['stderr']> };
    let pinned: ReturnType<typeof pinWorkingFolder>;
    try {
      pinned = pinWorkingFolder(options.cwd, limits.within);
    } catch {
      // Traded for a link out of the workspace since it was checked: the folder asked for is not there.
      reject(new GitFolderError(options.cwd, 'missing'));
      return;
    }
    try {
      child = spawn(gitPath, args, {
        cwd: pinned.cwd,
        env: limits.env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
    } catch (error) {
      // A cwd that is a file (or under one) fails synchronously (ENOTDIR); a missing one arrives as 'error' below.
      spawnFailure(error as Error, options.cwd).then(reject, reject);
      return;
    } finally {
      pinned.release(); // the child has its working folder (or never will)
    }
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    const stderr: Buffer[] = [];
    let stderrBytes = 0;
    /** Why we stopped it; set once, the first reason wins. */
    let stopped: GitRunError | undefined;
    let exited = false;
    let graceTimer: NodeJS.Timeout | undefined;

    const stop = (reason: string) => {
      if (stopped || exited) return;
      stopped = new GitRunError(reason);
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // The group is already empty: git exited between its last output and now; 'exit' follows.
      }
    };
    const deadline = setTimeout(() => stop(`${limits.label} timed out after ${limits.seconds} s`), limits.seconds * 1000);
    const onAbort = () => stop(`${limits.label} was aborted`);
    signal?.addEventListener('abort', onAbort, { once: true });

    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(graceTimer);
      signal?.removeEventListener('abort', onAbort);
      child.stdout.destroy();
      child.stderr.destroy();
      outcome();
    };

    child.on('error', (error) => {
      // Only a spawn failure ends here (no pid); a failed kill is caught where it is sent.
      if (child.pid === undefined) settle(() => spawnFailure(error, options.cwd).then(reject, reject));
    });
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > limits.maxStdoutBytes) {
        const reason = `${limits.label} printed more than ${formatBytes(limits.maxStdoutBytes)}; stopped`;
        // 'exit' may come before the pipe's last data: a git that already exited is past the cap all the same
        // (nothing left to kill), never an answer cut short.
        if (exited) stopped ??= new GitRunError(reason);
        else stop(reason);
        return;
      }
      stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      options.onStderr?.(chunk);
      stderr.push(chunk);
      stderrBytes += chunk.length;
      while (stderrBytes - stderr[0]!.length >= MAX_GIT_STDERR_BYTES) stderrBytes -= stderr.shift()!.length;
    });

    const answer = (code: number) =>
      settle(() => {
        if (stopped) return reject(stopped);
        resolve({ code, stdout: concat(stdout, stdoutBytes), stderr: Buffer.concat(stderr).toString('utf8') });
      });
    child.once('exit', (code, signalName) => {
      exited = true;
      const status = code ?? 128 + signalNumber(signalName);
      // What we killed rejects now: the whole group got SIGKILL, nobody is left to finish the output.
      if (stopped) return answer(status);
      // Output still in the pipes arrives before 'close'; a background job holding them gets a grace period.
      child.once('close', () => answer(status));
      graceTimer = setTimeout(() => answer(status), PIPE_GRACE_MS);
    });
  });
}

/**
 * Why git could not be started. Node reports a missing working directory as `spawn git ENOENT`, the very error of a
 * missing git, and one under a file as `spawn ENOTDIR`: the folder is looked at to tell them apart.
 */
async function spawnFailure(error: Error, cwd: string): Promise<GitRunError> {
  try {
    if (!(await stat(cwd)).isDirectory()) return new GitFolderError(cwd, 'not-a-folder');
  } catch (statError) {
    const code = (statError as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return new GitFolderError(cwd, 'missing');
    if (code === 'ENOTDIR') return new GitFolderError(cwd, 'not-a-folder');
  }
  return new GitRunError(`Failed to run git: ${error.message}`);
}

/** The chunks as one Uint8Array (no copy for the common single chunk). */
function concat(chunks: readonly Buffer[], bytes: number): Uint8Array {
  const whole = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes);
  return new Uint8Array(whole.buffer, whole.byteOffset, whole.length);
}

function signalNumber(name: NodeJS.Signals | null): number {
  const number = name === null ? undefined : (constants.signals as Record<string, number | undefined>)[name];
  return number ?? 0;
}

function formatBytes(bytes: number): string {
  const MiB = 1024 * 1024;
  return bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${bytes} bytes`;
}
