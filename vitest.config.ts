import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // An empty HOME for the whole run: no machine rc file, git or npm config reaches a test (test/support/isolated-home.ts).
    globalSetup: ['./test/support/isolated-home.ts', './test/support/shared-browser.ts'],
    // (shared-browser.ts: one headless Chromium for every panel test file of the run, test/panel/)
    // …and each test file an empty HOME of its own inside it, so files running side by side never share one.
    setupFiles: ['./test/support/home-per-file.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Real sockets, ptys and workerd: two cores here, so keep parallelism modest.
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
