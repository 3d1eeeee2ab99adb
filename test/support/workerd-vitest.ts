/**
 * The part of vitest's API the FileSystem contract uses (describe, it, beforeEach, afterEach, expect, `ctx.skip`),
 * for running that suite unchanged inside workerd, where vitest itself cannot run: the contract's module is bundled
 * with `vitest` pointing here (test/adapters/fs/durable-object-file-system.test.ts). `expect` is vitest's own
 * matchers (@vitest/expect over chai), so an assertion means exactly what it means in Node. Tests register as the
 * module loads; `runTest` runs one by its full name with its suites' hooks, and says how it ended.
 */
import { ASYMMETRIC_MATCHERS_OBJECT, chai, JestAsymmetricMatchers, JestChaiExpect, JestExtend, setState } from '@vitest/expect';
import type { ExpectStatic } from '@vitest/expect';

chai.use(JestExtend);
chai.use(JestChaiExpect);
chai.use(JestAsymmetricMatchers);

export const expect = ((value: unknown, message?: string) => chai.expect(value, message)) as unknown as ExpectStatic;
Object.assign(expect, chai.expect);
Object.assign(expect, (globalThis as Record<symbol, unknown>)[ASYMMETRIC_MATCHERS_OBJECT]);
setState({ assertionCalls: 0, isExpectingAssertions: false, expectedAssertionsNumber: null }, expect);

type Hook = () => unknown;
export interface TestContext {
  /** Ends the test as skipped (when `condition` is true or absent). */
  skip(condition?: boolean | string, note?: string): void;
}
type TestFn = (ctx: TestContext) => unknown;

interface Suite {
  name: string;
  before: Hook[];
  after: Hook[];
}
interface Registered {
  name: string;
  fn: TestFn;
  suites: Suite[];
}

const stack: Suite[] = [];
const tests = new Map<string, Registered>();

export function describe(name: string, body: () => void): void {
  stack.push({ name, before: [], after: [] });
  try {
    body();
  } finally {
    stack.pop();
  }
}

export function it(name: string, fn: TestFn): void {
  const full = [...stack.map((suite) => suite.name), name].join(' > ');
  if (tests.has(full)) throw new Error(`two tests named ${full}`);
  tests.set(full, { name: full, fn, suites: [...stack] });
}
export const test = it;

export function beforeEach(hook: Hook): void {
  const suite = stack.at(-1);
  if (!suite) throw new Error('beforeEach outside describe');
  suite.before.push(hook);
}

export function afterEach(hook: Hook): void {
  const suite = stack.at(-1);
  if (!suite) throw new Error('afterEach outside describe');
  suite.after.push(hook);
}

class Skipped extends Error {}

export function testNames(): string[] {
  return [...tests.keys()];
}

export type TestOutcome = { status: 'passed' | 'skipped' } | { status: 'failed'; error: string };

/** Runs one registered test: its suites' beforeEach hooks outer to inner, the test, then every afterEach inner to outer. */
export async function runTest(name: string): Promise<TestOutcome> {
  const registered = tests.get(name);
  if (!registered) return { status: 'failed', error: `no test named ${name}` };
  const ctx: TestContext = {
    skip(condition = true) {
      if (condition !== false) throw new Skipped();
    },
  };
  let outcome: TestOutcome = { status: 'passed' };
  const fail = (error: unknown) => {
    if (outcome.status === 'passed') outcome = error instanceof Skipped ? { status: 'skipped' } : { status: 'failed', error: describeError(error) };
  };
  try {
    for (const suite of registered.suites) for (const hook of suite.before) await hook();
    await registered.fn(ctx);
  } catch (error) {
    fail(error);
  }
  for (const suite of [...registered.suites].reverse()) {
    for (const hook of suite.after) {
      try {
        await hook();
      } catch (error) {
        fail(error);
      }
    }
  }
  return outcome;
}

function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.message}\n${error.stack ?? ''}`;
  return String(error);
}
