/**
 * The one way out of the leak check (test/support/leak-check.ts) for a test file that cannot meet it: called at
 * the file's top level with the kind of leftover it may leave, why, and, best, which ones (a pattern on what the
 * check would report: an fd's link target, a process's command line, a temp entry's path, a watch's inode). Kept
 * apart from the check itself so that importing it never runs the check's set-up a second time.
 */

export type LeftoverKind = 'processes' | 'fds' | 'watches' | 'temp';

const ALLOWANCES = Symbol.for('wsapi.test.leakAllowances');

type Registry = Map<LeftoverKind, { reason: string; only: RegExp | undefined }>;

function registry(): Registry {
  const holder = globalThis as { [ALLOWANCES]?: Registry };
  holder[ALLOWANCES] ??= new Map();
  return holder[ALLOWANCES];
}

/** Lets this test file end with leftovers of `kind` (those matching `only`, else all); `reason` says why. */
export function allowLeftovers(kind: LeftoverKind, reason: string, only?: RegExp): void {
  if (reason.trim() === '') throw new Error('allowLeftovers: say why this file cannot clean up');
  registry().set(kind, { reason, only });
}

/** Whether this test file said it may leave this leftover of `kind`, described as `what`. */
export function leftoverAllowed(kind: LeftoverKind, what: string): boolean {
  const allowance = registry().get(kind);
  return allowance !== undefined && (allowance.only === undefined || allowance.only.test(what));
}
