import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
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
  },
});
