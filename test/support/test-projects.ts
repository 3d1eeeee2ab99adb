/**
 * Which test files share worker processes (vitest `isolate: false`, vitest.config.ts) and which get a process
 * each. A file may share when it mocks no module (a mock would stay in the shared module registry) and leaves no
 * process-wide state changed (environment, working folder, console; a Node server it starts puts the Response
 * implementation back when it closes); test/support-checks/test-projects.test.ts holds the shared files to that.
 */
export const SHARED_TESTS = [
  'test/core/**/*.test.ts',
  'test/adapters/**/*.test.ts',
  'test/handlers/**/*.test.ts',
  'test/runtime/**/*.test.ts',
  'test/client/**/*.test.ts',
  'test/hardening/**/*.test.ts',
];

/** Shared folders' files that do one of those things: each keeps a process of its own. */
export const ISOLATED_EXCEPTIONS = [
  // vi.stubEnv: the environment its shells inherit
  'test/handlers/rpc/shell.test.ts',
  // a leak allowance for an upstream watcher bug (its own pipes), and many watcher restarts
  'test/handlers/workspace/wire.test.ts',
  // counts every child and descriptor of its process: another file's lazily started helpers would be among them
  'test/handlers/rpc/leak.test.ts',
];
