import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createScanPool, type ScanPool } from '../../../adapters/search/scan-pool.ts';
import type { FindQuery } from '../../../core/search/text/find-query.ts';
import { createFsScanner } from '../../../core/search/text/scanner.ts';
import { WorkspaceError } from '../../../core/errors/workspace-error.ts';
import { buildTree, type BuiltTree } from '../../support/backends.ts';
import { waitFor } from '../../support/processes.ts';
import { EXPECTED_WIDGET, SCAN_PATHS, SCAN_SEED, targets } from '../../core/search/text/scan-fixture.ts';

const query = (pattern: string, options: Partial<FindQuery> = {}): FindQuery => ({ pattern, literal: false, caseSensitive: false, word: false, ...options });

/** Real worker threads over real temp files. One pool for the file (a worker start costs ~60 ms). */
describe('createScanPool', () => {
  let tree: BuiltTree;
  let pool: ScanPool;
  beforeAll(async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 700; i++) many[`many/f${String(i).padStart(3, '0')}.txt`] = i % 7 === 0 ? `line\nneedle ${i}\n` : `nothing ${i}\n`;
    tree = await buildTree('node', { ...SCAN_SEED, ...many });
    pool = createScanPool({ workers: 2 });
  });
  afterAll(async () => {
    await pool.close();
    await tree.cleanup();
  });

  it('answers what the in-process scanner answers, in the order of the list', async () => {
    const files = await targets(tree, SCAN_PATHS);
    expect([...(await pool.scan({ query: query('widget'), files }))]).toEqual(EXPECTED_WIDGET);
    for (const asked of [query('needle \\d+'), query('NEEDLE', { literal: true, caseSensitive: true }), query('(nothing|needle) 1', { word: false })]) {
      const all = await targets(tree, [...SCAN_PATHS, ...Array.from({ length: 700 }, (_, i) => `many/f${String(i).padStart(3, '0')}.txt`)].reverse());
      const fromPool = await pool.scan({ query: asked, files: all });
      expect([...fromPool]).toEqual([...(await createFsScanner(tree.fs).scan({ query: asked, files: all }))]);
    }
    const needles = await pool.scan({ query: query('needle'), files: await targets(tree, ['many/f007.txt', 'many/f001.txt', 'many/f000.txt']) });
    expect([...needles.keys()]).toEqual(['many/f007.txt', 'many/f000.txt']);
    expect(needles.get('many/f000.txt')?.hits[0]).toEqual({ line: 2, text: 'needle 0', spans: [{ start: 0, end: 6 }], tags: [{ kind: 'text' }] });
  });

  it('ruleOut: the files read whole that lack the query\'s literals, and only those', async () => {
    const names = Array.from({ length: 700 }, (_, i) => `many/f${String(i).padStart(3, '0')}.txt`);
    const files = await targets(tree, names);
    const lacking = files.filter((_, i) => i % 7 !== 0).map((file) => file.absolutePath);
    expect(await pool.ruleOut({ query: query('NEEDLE \\d'), files })).toEqual(new Set(lacking));
    // Files not read (gone) are never ruled out; a query without a required literal rules nothing out.
    const gone = [{ path: 'gone.txt', absolutePath: `${tree.root}/gone.txt`, size: 1 }];
    expect(await pool.ruleOut({ query: query('needle'), files: gone })).toEqual(new Set());
    expect(await pool.ruleOut({ query: query('\\w+'), files })).toEqual(new Set());
  });

  it('scans a stream of batches as they come (the first before the next is given), in the order given', async () => {
    const all = await targets(tree, [...SCAN_PATHS, ...Array.from({ length: 700 }, (_, i) => `many/f${String(i).padStart(3, '0')}.txt`)]);
    let next: (() => void) | undefined;
    async function* stream() {
      yield all.slice(0, 3);
      // A walk still going on: the rest comes when the test says.
      await new Promise<void>((resolve) => (next = resolve));
      yield all.slice(3, 400);
      yield [];
      yield all.slice(400);
    }
    let settled = false;
    const scanning = pool.scan({ query: query('widget|needle'), files: stream() }).finally(() => (settled = true));
    await waitFor(() => next, { what: 'the pool asking for the second batch' });
    await pool.scan({ query: query('x'), files: all.slice(0, 1) }); // the first batch is on a worker or done by now
    expect(settled).toBe(false); // the scan waits for the stream to end
    next!();
    const streamed = await scanning;
    expect([...streamed]).toEqual([...(await pool.scan({ query: query('widget|needle'), files: all }))]);
    expect([...streamed.keys()].slice(0, 2)).toEqual(['z/last.txt', 'src/a.ts']);
  });

  it('fails a scan whose stream fails, and keeps serving', async () => {
    const files = await targets(tree, SCAN_PATHS);
    async function* failing() {
      yield files;
      throw new Error('the walk failed');
    }
    await expect(pool.scan({ query: query('widget'), files: failing() })).rejects.toThrow('the walk failed');
    expect([...(await pool.scan({ query: query('widget'), files }))]).toEqual(EXPECTED_WIDGET);
  });

  it('answers an empty list at once, and runs concurrent scans side by side', async () => {
    expect((await pool.scan({ query: query('x'), files: [] })).size).toBe(0);
    const files = await targets(tree, SCAN_PATHS);
    const [a, b] = await Promise.all([pool.scan({ query: query('widget'), files }), pool.scan({ query: query('nothing'), files })]);
    expect([...a]).toEqual(EXPECTED_WIDGET);
    expect([...b.keys()]).toEqual(['src/b.ts']);
  });

  it('skips files deleted since the listing, links (never followed) and a FIFO (never blocks)', async () => {
    await writeFile(`${tree.root}/gone.txt`, 'widget');
    const files = await targets(tree, ['gone.txt', 'link.txt', 'fifo', 'z/last.txt'], { 'link.txt': 6, fifo: 0 });
    await symlink(`${tree.root}/z/last.txt`, `${tree.root}/link.txt`);
    execFileSync('mkfifo', [`${tree.root}/fifo`]);
    await rm(`${tree.root}/gone.txt`);
    expect([...(await pool.scan({ query: query('widget'), files })).keys()]).toEqual(['z/last.txt']);
  });

  it('with `within`, skips a file reached through a folder swapped for a link out since the listing', async () => {
    // Listed while `swapped` was a folder inside; by the scan it is a link to a folder beside the root.
    const outside = await mkdtemp(join(tmpdir(), 'wsapi-scan-outside-'));
    await writeFile(join(outside, 'secret.txt'), 'needle outside\n');
    await mkdir(join(tree.root, 'swapped'));
    await writeFile(join(tree.root, 'swapped', 'secret.txt'), 'needle inside\n');
    const files = await targets(tree, ['swapped/secret.txt']);
    await rename(join(tree.root, 'swapped'), join(tree.root, 'swapped-held'));
    await symlink(outside, join(tree.root, 'swapped'));
    const confined = createScanPool({ workers: 1, within: tree.root });
    try {
      // Without `within` the worker reads the outside file (O_NOFOLLOW guards the last name only)...
      expect([...(await pool.scan({ query: query('needle'), files })).values()].map((match) => match.hits[0]!.text)).toEqual(['needle outside']);
      // ...with it, the file is skipped, as an unreadable one is.
      expect([...(await confined.scan({ query: query('needle'), files }))]).toEqual([]);
      expect(await confined.ruleOut({ query: query('needle'), files })).toEqual(new Set());
    } finally {
      await confined.close();
      await rm(join(tree.root, 'swapped'));
      await rm(join(tree.root, 'swapped-held'), { recursive: true });
      await rm(outside, { recursive: true });
    }
  });

  it('stops a scan past its deadline by replacing its workers, and keeps serving', async () => {
    // 64 files of 1 MiB, one line each that a regex without literals must decode and walk whole: seconds of work.
    const slow: Record<string, string> = {};
    for (let i = 0; i < 64; i++) slow[`slow/${i}.txt`] = `${'ab'.repeat(500_000)}\n`;
    const slowTree = await buildTree('node', slow);
    try {
      const files = await targets(slowTree, Object.keys(slow));
      const failure = await pool.scan({ query: query('(a|b)+$'), files, deadlineMs: Date.now() + 1 }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(WorkspaceError);
      expect(failure).toMatchObject({ code: 'bad-request', message: 'search took longer than 0 s; narrow it with include' });
      // Aborting works the same way.
      const controller = new AbortController();
      const aborted = pool.scan({ query: query('(a|b)+$'), files, signal: controller.signal });
      setTimeout(() => controller.abort(new Error('cancelled')), 5);
      await expect(aborted).rejects.toThrow('cancelled');
      // The pool still answers, on fresh workers.
      expect([...(await pool.scan({ query: query('widget'), files: await targets(tree, SCAN_PATHS) }))]).toEqual(EXPECTED_WIDGET);
    } finally {
      await slowTree.cleanup();
    }
  });

  it('terminates workers idle for idleMs; a later scan starts them again', async () => {
    const idle = createScanPool({ workers: 2, idleMs: 150 });
    try {
      const files = await targets(tree, [...SCAN_PATHS, ...Array.from({ length: 700 }, (_, i) => `many/f${String(i).padStart(3, '0')}.txt`)]);
      const first = [...(await idle.scan({ query: query('needle'), files }))];
      expect(first).toHaveLength(100);
      // The worker that answered last has just armed its timer; the other may already be gone on a loaded machine.
      expect(idle.workerCount).toBeGreaterThanOrEqual(1);
      await waitFor(() => idle.workerCount === 0, { what: 'the idle scan workers to end' });
      expect([...(await idle.scan({ query: query('needle'), files }))]).toEqual(first);
      expect(idle.workerCount).toBeGreaterThanOrEqual(1);
    } finally {
      await idle.close();
    }
    expect(idle.workerCount).toBe(0);
  });

  it('an idle pool does not keep the process alive (its idle timers and workers are unref’d)', async () => {
    // One scan through a pool with a 10-minute idle time, never closed: the process must exit by itself.
    const script = [
      `import { createScanPool } from ${JSON.stringify(new URL('../../../adapters/search/scan-pool.ts', import.meta.url).href)};`,
      'const pool = createScanPool({ workers: 1, idleMs: 600_000 });',
      `const files = [{ path: 'z/last.txt', absolutePath: ${JSON.stringify(`${tree.root}/z/last.txt`)}, size: 19 }];`,
      "const found = await pool.scan({ query: { pattern: 'widget', literal: true, caseSensitive: false, word: false }, files });",
      'console.log(JSON.stringify([pool.workerCount, [...found.keys()]]));',
    ].join('\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 15_000 });
    expect(JSON.parse(stdout)).toEqual([1, ['z/last.txt']]);
  });

  it('hands a worker its next batch before it answers the current one (it never waits on the main thread)', async () => {
    const onePool = createScanPool({ workers: 1 });
    let postedAtOnce: number | undefined;
    let posted = 0;
    const post = Worker.prototype.postMessage;
    const spy = vi.spyOn(Worker.prototype, 'postMessage').mockImplementation(function (this: Worker, ...args) {
      // Batches handed out in one go are counted before any answer can come back.
      if (posted++ === 0) queueMicrotask(() => (postedAtOnce = posted));
      return post.apply(this, args);
    });
    try {
      const names = Array.from({ length: 700 }, (_, i) => `many/f${String(i).padStart(3, '0')}.txt`);
      const files = await targets(tree, names);
      const found = await onePool.scan({ query: query('needle'), files });
      expect(postedAtOnce).toBe(2); // 700 files: three batches, two of them in the worker's port at once
      expect(found.size).toBe(100);
    } finally {
      spy.mockRestore();
      await onePool.close();
    }
  });

  it('fails scans once closed', async () => {
    const closing = createScanPool({ workers: 1 });
    const files = await targets(tree, SCAN_PATHS);
    expect([...(await closing.scan({ query: query('widget'), files }))]).toEqual(EXPECTED_WIDGET);
    await closing.close();
    await expect(closing.scan({ query: query('widget'), files })).rejects.toThrow('the scan pool is closed');
  });
});
