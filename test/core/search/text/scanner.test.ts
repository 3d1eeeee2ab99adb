import { describe, expect, it } from 'vitest';
import { MAX_SEARCHED_FILE_BYTES } from '../../../../core/search/answer.ts';
import type { FindQuery } from '../../../../core/search/text/find-query.ts';
import { createFsScanner } from '../../../../core/search/text/scanner.ts';
import { WorkspaceError } from '../../../../core/errors/workspace-error.ts';
import { BACKENDS, treesFor, type Seed } from '../../../support/backends.ts';
import { EXPECTED_WIDGET, SCAN_PATHS, SCAN_SEED, targets } from './scan-fixture.ts';

const TEXT = [{ kind: 'text' }];
const query = (pattern: string, options: Partial<FindQuery> = {}): FindQuery => ({ pattern, literal: false, caseSensitive: false, word: false, ...options });

describe.each(BACKENDS)('createFsScanner (%s)', (backend) => {
  const build = treesFor(backend);

  it('answers the files with hits, keyed by path, in the order of the list; binary and big files skipped', async () => {
    const tree = await build(SCAN_SEED);
    const found = await createFsScanner(tree.fs).scan({ query: query('widget'), files: await targets(tree, SCAN_PATHS) });
    expect([...found]).toEqual(EXPECTED_WIDGET);
  });

  it('takes the files as a stream of batches too, answering in the order they came', async () => {
    const tree = await build(SCAN_SEED);
    const files = await targets(tree, SCAN_PATHS);
    async function* batches() {
      yield files.slice(0, 2);
      yield [];
      yield files.slice(2);
    }
    expect([...(await createFsScanner(tree.fs).scan({ query: query('widget'), files: batches() }))]).toEqual(EXPECTED_WIDGET);
  });

  it('skips a file deleted since the listing, and one that grew over 1 MiB (re-checked on read)', async () => {
    const tree = await build({ 'a.txt': 'widget', 'b.txt': 'widget', 'grown.txt': 'widget' });
    const files = await targets(tree, ['a.txt', 'b.txt', 'grown.txt']);
    await tree.fs.remove(`${tree.root}/a.txt`);
    await tree.fs.write(`${tree.root}/grown.txt`, `widget ${'y'.repeat(MAX_SEARCHED_FILE_BYTES)}`);
    const found = await createFsScanner(tree.fs).scan({ query: query('widget'), files });
    expect([...found.keys()]).toEqual(['b.txt']);
  });

  it('skips a file listed over 1 MiB without reading it', async () => {
    const tree = await build({ 'small.txt': 'widget' });
    const files = await targets(tree, ['small.txt'], { 'small.txt': MAX_SEARCHED_FILE_BYTES + 1 });
    expect((await createFsScanner(tree.fs).scan({ query: query('widget'), files })).size).toBe(0);
  });

  it('fails past its deadline with a bad-request error that says what to do', async () => {
    const tree = await build({ 'a.txt': 'widget' });
    const files = await targets(tree, ['a.txt']);
    const failure = await createFsScanner(tree.fs)
      .scan({ query: query('widget'), files, deadlineMs: Date.now() - 1 })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkspaceError);
    expect(failure).toMatchObject({ code: 'bad-request', status: 400, message: 'search took longer than 0 s; narrow it with include' });
    const budget = await createFsScanner(tree.fs).scan({ query: query('widget'), files, deadlineMs: Date.now() + 60_000 });
    expect([...budget.keys()]).toEqual(['a.txt']);
  });

  it('stops when its signal aborts', async () => {
    const tree = await build({ 'a.txt': 'widget' });
    const controller = new AbortController();
    controller.abort(new Error('client went away'));
    const scan = createFsScanner(tree.fs).scan({ query: query('widget'), files: await targets(tree, ['a.txt']), signal: controller.signal });
    await expect(scan).rejects.toThrow('client went away');
  });

  it('runs a regex that does not compile as literal text', async () => {
    const tree = await build({ 'a.txt': 'call(x\nf(x)' });
    const found = await createFsScanner(tree.fs).scan({ query: query('call(x'), files: await targets(tree, ['a.txt']) });
    expect([...found]).toEqual([['a.txt', { hits: [{ line: 1, text: 'call(x', spans: [{ start: 0, end: 6 }], tags: TEXT }], capped: false }]]);
  });
});
