/**
 * A query answered while the list's first walk runs holds the background walks (the list's, the watcher's
 * ignored-folder walk) until its page is answered — the `context` parses of its top files included, since on
 * 2 cores the list's walk otherwise takes the core those parses need. Likewise `search_in_files`'s prefilter
 * holds them until that search, which walks and reads after the prefilter, has ended.
 */
import { afterEach, expect, it } from 'vitest';
import { MemoryFileSystem } from '../../../../adapters/fs/memory-file-system.ts';
import { createChangeFeed } from '../../../../core/changes/create-change-feed.ts';
import type { ListGivesWay } from '../../../../core/search/engine/list-gives-way.ts';
import { createSearchEngine } from '../../../../core/search/search-engine.ts';
import type { SymbolDef } from '../../../../core/search/symbols/symbol-def.ts';
import { heuristicSymbols } from '../../../../core/search/symbols/heuristic-symbols.ts';
import { createFsScanner, scanBatches, type ScanRequest } from '../../../../core/search/text/scanner.ts';
import { deferred } from '../../../support/gates.ts';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A policy that holds the list until `release()` and counts the walking queries running. */
function countingPolicy(): ListGivesWay & { running(): number; release(): void } {
  const held = deferred();
  let running = 0;
  return {
    begin() {
      running++;
      let ended = false;
      return () => {
        if (!ended) running--;
        ended = true;
      };
    },
    turn: () => held.promise,
    running: () => running,
    release: () => held.resolve(),
  };
}

it('keeps the walking turn until the page is decorated, and gives it back after', async () => {
  const fs = new MemoryFileSystem({ '/ws/a.ts': 'export function holder() {\n  return "needle";\n}\n' });
  const changes = createChangeFeed();
  const policy = countingPolicy();
  const parseAsked = deferred<number>();
  const parseDone = deferred();
  const engine = createSearchEngine({
    fs,
    root: async () => '/ws',
    changes,
    exclude: async () => [],
    changesAreSeen: true,
    index: false,
    walkingQueries: policy,
    symbolsOf: async (path, text): Promise<SymbolDef[]> => {
      parseAsked.resolve(policy.running());
      await parseDone.promise;
      return heuristicSymbols(path, text);
    },
  });
  closers.push(() => changes.close(), () => engine.close(), () => policy.release());

  const answer = engine.search({ query: 'needle', mode: 'find', literal: false, caseSensitive: false, word: false, includeIgnored: false, limit: 10 });
  // The decoration's parse is asked while the query still holds the turn.
  expect(await parseAsked.promise).toBe(1);
  parseDone.resolve();
  const page = await answer;
  expect(page.freshness).toEqual({ state: 'building', progress: 0 });
  expect(page.groups.map((group) => [group.path, group.hits.map((hit) => hit.context)])).toEqual([['a.ts', ['holder (fn)']]]);
  expect(policy.running()).toBe(0);
});

it("a prefilter that walked the disk keeps the turn until the caller's search has ended", async () => {
  const fs = new MemoryFileSystem({ '/ws/a.txt': 'needle\n', '/ws/b.txt': 'hay\n' });
  const changes = createChangeFeed();
  const policy = countingPolicy();
  const read: string[][] = [];
  // The scan pool's rule-out, in-process: what a worker would rule out (files without the literal).
  const scanner = {
    ...createFsScanner(fs),
    async ruleOut(request: ScanRequest): Promise<Set<string>> {
      const out = new Set<string>();
      for await (const batch of scanBatches(request.files)) {
        read.push(batch.map((file) => file.path));
        for (const file of batch) if (!new TextDecoder().decode(await fs.read(file.absolutePath)).includes('needle')) out.add(file.absolutePath);
      }
      return out;
    },
  };
  const engine = createSearchEngine({ fs, root: async () => '/ws', changes, exclude: async () => [], changesAreSeen: true, index: false, walkingQueries: policy, scanner });
  closers.push(() => changes.close(), () => engine.close(), () => policy.release());
  engine.start();

  const searched = deferred();
  const mayHold = await engine.mayHoldMatch({ pattern: 'needle', literal: true, caseSensitive: false, word: false }, { searched: searched.promise });
  expect(read.flat().sort()).toEqual(['a.txt', 'b.txt']); // the direct walk's files, read by the prefilter
  expect([mayHold?.('/ws/a.txt'), mayHold?.('/ws/b.txt')]).toEqual([true, false]);
  expect(policy.running()).toBe(1); // the caller is still searching
  searched.resolve();
  await searched.promise;
  await Promise.resolve();
  expect(policy.running()).toBe(0);

  // Without `searched`, the turn ends with the prefilter.
  await engine.mayHoldMatch({ pattern: 'needle', literal: true, caseSensitive: false, word: false });
  expect(policy.running()).toBe(0);
});
