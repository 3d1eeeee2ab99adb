import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';
import { GIT_IDENTITY_ENV } from '../../support/git-test-server.ts';

/**
 * Real git repositories in temp folders for the parser tests, run with the git CLI directly. The machine's and
 * user's config are kept out (a global `status.short`, `diff.renames=false` or a signing key would change the
 * output under test), messages are untranslated (LC_ALL=C, as the runner sets) and dates are fixed so
 * `%at` is exact.
 */
export const GIT_TEST_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: '/nonexistent',
  LC_ALL: 'C',
  ...GIT_IDENTITY_ENV,
};

export interface TempRepo {
  dir: string;
  /** Runs git in the repo; throws when it fails. */
  git(...args: string[]): Buffer;
  /** `git` with author and committer time `time` (Unix seconds). */
  gitAt(time: number, ...args: string[]): Buffer;
  /** Runs git in the repo and gives its stdout whatever the exit code (a merge with conflicts exits 1). */
  gitAnyway(...args: string[]): Buffer;
  /** Writes a file (folders made), relative to the repo. */
  write(path: string, content: string | Uint8Array): void;
  /** Commits everything with `message`, at author time `time`. */
  commitAll(message: string, time?: number): void;
}

/** A parent temp folder removed after the file's tests; repos are made inside it. */
export function tempRepos(): { repo(name?: string, options?: { bare?: boolean; init?: boolean }): TempRepo } {
  const parent = mkdtempSync(join(tmpdir(), 'core-git-'));
  afterAll(() => rmSync(parent, { recursive: true, force: true }));
  let made = 0;
  return {
    repo(name = `repo${made++}`, { bare = false, init = true } = {}) {
      const dir = join(parent, name);
      mkdirSync(dir, { recursive: true });
      const run = (args: string[], env: NodeJS.ProcessEnv = GIT_TEST_ENV) =>
        execFileSync('git', ['-C', dir, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      if (init) run(bare ? ['init', '-q', '--bare', '-b', 'main'] : ['init', '-q', '-b', 'main']);
      return {
        dir,
        git: (...args) => run(args),
        gitAt: (time, ...args) => run(args, atTime(time)),
        gitAnyway(...args) {
          try {
            return run(args);
          } catch (error) {
            return (error as { stdout: Buffer }).stdout;
          }
        },
        write(path, content) {
          mkdirSync(dirname(join(dir, path)), { recursive: true });
          writeFileSync(join(dir, path), content);
        },
        commitAll(message, time = 1700000000) {
          run(['add', '-A', '.']);
          run(['commit', '-q', '-m', message], atTime(time));
        },
      };
    },
  };
}

function atTime(time: number): NodeJS.ProcessEnv {
  return { ...GIT_TEST_ENV, GIT_AUTHOR_DATE: `${time} +0000`, GIT_COMMITTER_DATE: `${time} +0000` };
}
