/**
 * What the engine's own state must never do to an answer: an answer computed while a background part (the prose
 * index, the symbol pass) was still filling is not served once that part is done, and a file listed as regular but
 * since replaced by a link out of the root is never read through the link (docs/intentic-search.md: symbolic links are
 * skipped). Both found by review.
 */
import { rm, symlink, writeFile } from 'node:fs/promises';
import { afterEach, expect, it } from 'vitest';
import { createScanPool } from '../../../adapters/search/scan-pool.ts';
import { TreeSitterParsers } from '../../../adapters/search/tree-sitter-parsers.ts';
import { createFixture, type Fixture } from '../../support/backends.ts';
import { openSearch } from './search-fixture.ts';

const parsers = new TreeSitterParsers();
const seed: Record<string, string> = { 'docs/lantern.md': '# Lantern\nThe brass lantern glows brightly in the dark cave.\n' };
for (let i = 0; i < 400; i++) seed[`src/m${i}.ts`] = `export function handler${i}() { return ${i}; }\n// the lantern glows in module ${i}\n`;

const opened: Fixture[] = [];
afterEach(async () => void (await Promise.all(opened.splice(0).map((fixture) => fixture.cleanup()))));
async function open(): Promise<Fixture> {
  const fixture = await createFixture('memory', seed);
  opened.push(fixture);
  return fixture;
}
const withoutFreshness = (answer: object) => ({ ...answer, freshness: undefined });

it.each([
  { query: 'brass lantern glows', mode: 'q' },
  { query: 'hndlr399', mode: 'sym' },
] as const)('an answer asked while the engine was building is not kept once it is done ($mode)', async (input) => {
  const early = await open();
  await early.client.workspace.search(input); // while the index, the prose feed and the symbol pass are running
  await early.app.search.settled();
  const reference = await open();
  await reference.app.search.settled();
  const expected = await reference.client.workspace.search(input);
  expect(expected.files).toBeGreaterThan(input.mode === 'q' ? 1 : 0); // q: every module mentions the lantern
  expect(expected.note).toBeUndefined();
  expect(withoutFreshness(await early.client.workspace.search(input))).toEqual(withoutFreshness(expected));
});

it('never reads a listed file through a link swapped in for it (node, with the daemon\'s scan pool)', async () => {
  const scanner = createScanPool();
  const ws = await openSearch('node', { 'src/a.ts': 'export function plainFn() { return 1; }\n' }, { search: { parsers, scanner } });
  try {
    await writeFile(`${ws.fixture.outside}/secret.ts`, 'export function topSecretKey() { return "hunter2"; }\n');
    await rm(`${ws.root}/src/a.ts`);
    await symlink(`${ws.fixture.outside}/secret.ts`, `${ws.root}/src/a.ts`); // no watcher: the list still says "file"
    for (const input of [{ query: 'hunter2', mode: 'find' }, { query: 'function $N() { $$$ }', mode: 'ast' }, { query: 'topSecretKey', mode: 'def' }] as const) {
      const answer = await ws.search(input);
      expect(JSON.stringify(answer), input.mode).not.toMatch(/hunter2|topSecretKey\(/);
    }
  } finally {
    await ws.cleanup();
    await scanner.close();
  }
});

it('never reads a listed file through a link swapped in for it (memory backend)', async () => {
  const ws = await openSearch('memory', { 'src/a.ts': 'export function plainFn() { return 1; }\n' }, { search: { parsers } });
  try {
    // Swapped behind the change feed's back (what an OS-level change looks like before a watcher reports it).
    await ws.fs.write(`${ws.fixture.outside}/secret.ts`, 'export function topSecretKey() { return "hunter2"; }\n');
    await ws.fs.remove(`${ws.root}/src/a.ts`);
    await ws.fs.symlink(`${ws.fixture.outside}/secret.ts`, `${ws.root}/src/a.ts`);
    for (const input of [{ query: 'hunter2', mode: 'find' }, { query: 'function $N() { $$$ }', mode: 'ast' }] as const) {
      expect(JSON.stringify(await ws.search(input)), input.mode).not.toContain('hunter2');
    }
  } finally {
    await ws.cleanup();
  }
});
