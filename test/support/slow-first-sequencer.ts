import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The suite's longest files, slowest first (seconds each on 2 shared cores, from `npm test`). A fresh clone has
 * no vitest cache, so vitest would start files in glob order and a 25-second file could start last and keep the
 * run going alone; starting the longest first lets the short ones fill the gaps (the classic longest-first rule).
 * The list only needs to be roughly right: a file missing from it just starts in vitest's own order.
 */
export const SLOW_FILES = [
  'test/package/package.test.ts', // 50–100: npm pack, an install that builds node-pty, tsc over the declarations
  'test/panel/editor.test.ts', // 35–42
  'test/panel/chat.test.ts', // 20–42
  'test/adapters/search/durable-object-search.test.ts', // 16–32
  'test/panel/terminals.test.ts', // 26–29
  'test/panel/search.test.ts', // 26–28
  'test/panel/tree.test.ts', // 27–32
  'test/handlers/rpc/chat-opencode.test.ts', // 15–28
  'test/runtime/node/cli.test.ts', // 23–26
  'test/runtime/worker.test.ts', // 10–23
  'test/hardening/kill-under-load.test.ts', // 18
  'test/panel/journey.test.ts', // 7–14
  'test/panel/sign-in.test.ts', // 11–13
  'test/runtime/node/server.test.ts', // 10–14
  'test/handlers/rpc/pty.test.ts', // 8–14
  'test/runtime/node/terminal-zombies.test.ts', // 10–12
];

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const index = SLOW_FILES.indexOf(relative(this.ctx.config.root, spec.moduleId));
      return index === -1 ? SLOW_FILES.length : index;
    };
    return sorted
      .map((spec, order) => ({ spec, order, rank: rank(spec) }))
      .sort((a, b) => a.rank - b.rank || a.order - b.order)
      .map(({ spec }) => spec);
  }
}
