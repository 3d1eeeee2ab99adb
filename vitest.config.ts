import { defineConfig } from 'vitest/config';
import { ISOLATED_EXCEPTIONS, SHARED_TESTS } from './test/support/test-projects.ts';

export default defineConfig({
  test: {
    // An empty HOME for the whole run: no machine rc file, git or npm config reaches a test (test/support/isolated-home.ts).
    globalSetup: ['./test/support/isolated-home.ts', './test/support/shared-browser.ts'],
    // (shared-browser.ts: one headless Chromium for every panel test file of the run, test/panel/)
    // …and each test file an empty HOME of its own inside it, so files running side by side never share one; then
    // each file must end as it began: no process, fd, inotify watch or temp file left (test/support/leak-check.ts).
    setupFiles: ['./test/support/home-per-file.ts', './test/support/leak-check.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Real sockets, ptys, browsers and workerd: two cores here. Three files at a time, not two: most of a file's
    // time is spent waiting on a child process, a socket or a browser, so a third keeps the cores busy (the suite:
    // 347 s with two, 314 s with three, same results); the tests wait on events, not fixed times, so the load does
    // not change what they see.
    pool: 'forks',
    maxWorkers: 3,
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Two kinds of file. Most files (the core's, the adapters', the handlers', the runtime's, the clients' and the
    // hardening runs') mock nothing and leave no process-wide state changed, so they share worker processes
    // (`isolate: false`): each worker loads the modules they import once instead of once per file — import time was
    // the larger part of their run. The panel's, the package's, the other runtimes' and a few named exceptions run
    // each file in a fresh process (test/support/test-projects.ts has the lists and the rule; a check holds the
    // shared files to it). The leak check and the per-file HOME and TMPDIR hold in both (setup files run before
    // every file either way).
    projects: [
      { extends: true, test: { name: 'shared', include: SHARED_TESTS, exclude: ISOLATED_EXCEPTIONS, isolate: false } },
      // The browser's, the package's and the other runtimes' files: a step waits on a page, a build or a workerd that
      // the rest of the suite slows down (a first chat in the panel: 3 s alone, 11–20 s beside the suite's start).
      { extends: true, test: { name: 'isolated', include: ['test/**/*.test.ts'], exclude: SHARED_TESTS, testTimeout: 45_000 } },
      // The shared folders' exceptions: a process each, as 'isolated'.
      { extends: true, test: { name: 'isolated-exceptions', include: ISOLATED_EXCEPTIONS } },
    ],
  },
});
