import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { projectRoot } from '../../../runtime/worker-build.ts';
import type { TestOutcome } from '../../support/workerd-vitest.ts';

/**
 * The FileSystem contract inside real workerd (miniflare, SQLite-backed Durable Objects): ./workerd/contract-worker.ts
 * runs the suite unchanged in an object, and each of its tests is one test here, answered by a request.
 */

// Miniflare runs scripts from under its working folder: the bundle stays under the project.
const SCRIPT = join(projectRoot, 'dist/test-fs-contract/worker.js');
await build({
  entryPoints: [join(projectRoot, 'test/adapters/fs/workerd/contract-worker.ts')],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  conditions: ['workerd', 'worker', 'browser'],
  alias: { vitest: join(projectRoot, 'test/support/workerd-vitest.ts') },
  outfile: SCRIPT,
  logLevel: 'silent',
});
const mf = new Miniflare({
  scriptPath: SCRIPT,
  modules: true,
  compatibilityDate: '2026-04-26',
  durableObjects: { CONTRACT: { className: 'ContractObject', useSQLite: true } },
});
const names = (await (await mf.dispatchFetch('http://contract.test/list')).json()) as string[];

afterAll(() => mf.dispose());

describe('in workerd', () => {
  it('registers the whole contract for every backend', () => {
    if (names.length < 100) throw new Error(`only ${names.length} contract tests registered`);
  });
  for (const name of names) {
    it(name, async (ctx) => {
      const outcome = (await (await mf.dispatchFetch(`http://contract.test/run?name=${encodeURIComponent(name)}`)).json()) as TestOutcome;
      if (outcome.status === 'skipped') ctx.skip();
      if (outcome.status === 'failed') throw new Error(outcome.error);
    });
  }
});
