/**
 * vitest globalSetup: every test process, and every shell, git and daemon the tests start, gets an empty HOME of
 * its own for the run, never the machine's. Interactive shells in the tests' terminals would otherwise run the
 * machine's ~/.bashrc: here that ran `pyenv init`, whose rehash takes a lock file that a terminal killed mid-rehash
 * (as the tests do by the hundred) leaves behind, and every later interactive bash then waited 60 s for it — every
 * terminal test after it timed out, in this run and in the next ones. It also keeps git's and npm's user
 * configuration and the search index's cache folder (~/.cache) out of the tests.
 *
 * Forked workers inherit the environment set here (it runs in the main process before they start); each test
 * file then moves to an empty HOME of its own inside this one (home-per-file.ts, vitest setupFiles).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const home = mkdtempSync(join(tmpdir(), 'wsapi-test-home-'));
  const saved = { HOME: process.env.HOME, WSAPI_TEST_MACHINE_HOME: process.env.WSAPI_TEST_MACHINE_HOME, WSAPI_TEST_RUN_HOME: process.env.WSAPI_TEST_RUN_HOME, XDG_CACHE_HOME: process.env.XDG_CACHE_HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
  // The one test that installs packages as a user would (test/package/) runs npm with this home's npm settings
  // (registry, cache, the headers native addons build against); nothing else may read it.
  if (process.env.HOME !== undefined) process.env.WSAPI_TEST_MACHINE_HOME ??= process.env.HOME;
  process.env.HOME = home;
  process.env.WSAPI_TEST_RUN_HOME = home;
  delete process.env.XDG_CACHE_HOME;
  delete process.env.XDG_CONFIG_HOME;
  // A non-interactive bash reads $BASH_ENV, sh reads $ENV: neither may point into the machine's files.
  delete process.env.BASH_ENV;
  delete process.env.ENV;
  return () => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    rmSync(home, { recursive: true, force: true });
  };
}
