import { defineConfig } from 'vitest/config';

/** The test files that share worker processes (see `projects` below). */
const SHARED = ['test/core/**/*.test.ts', 'test/adapters/**/*.test.ts'];

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
    // Two kinds of file. The core's and the adapters' tests start no server, terminal host or browser and set no
    // process-wide state, so they share worker processes (`isolate: false`): each worker loads the modules they
    // import once instead of once per file — import time was the larger part of their run. Everything else runs
    // each file in a fresh process: a Node server switches the process's Response implementation
    // (runtime/node/server.ts), and daemons, terminals and browsers are easier to reason about one file at a time.
    // The leak check and the per-file HOME and TMPDIR hold in both (setup files run before every file either way).
    projects: [
      { extends: true, test: { name: 'shared', include: SHARED, isolate: false } },
      { extends: true, test: { name: 'isolated', include: ['test/**/*.test.ts'], exclude: SHARED } },
    ],
  },
});
