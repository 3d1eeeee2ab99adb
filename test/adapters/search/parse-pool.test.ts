import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createParsePool, type ParsePool } from '../../../adapters/search/parse-pool.ts';
import { TreeSitterParsers } from '../../../adapters/search/tree-sitter-parsers.ts';
import { inProcessAstMatcher } from '../../../core/search/symbols/ast-matcher.ts';
import { fileSymbols } from '../../../core/search/symbols/file-symbols.ts';
import { fileFigures } from '../../../core/health/file-figures.ts';
import { waitFor } from '../../support/processes.ts';

const FIXTURE = new URL('../../fixtures/search-repo/', import.meta.url);
/** Parsed by a grammar (C through the C++ one, TS, TSX, JS, Python, Go, Rust, Java), by line heuristics (Ruby), not at all (Markdown). */
const FIXTURE_FILES = [
  'c/ring.c',
  'c/ring.h',
  'cpp/shapes.cpp',
  'src/widgets.ts',
  'src/app.tsx',
  'src/legacy.js',
  'py/inventory.py',
  'go/main.go',
  'rust/src/lib.rs',
  'java/src/main/java/com/example/WidgetService.java',
  'scripts/deploy.rb',
  'README.md',
];
const fixtureText = (path: string) => readFile(new URL(path, FIXTURE), 'utf8');
const inProcess = fileSymbols(new TreeSitterParsers());

/** A pool whose workers the test can see: each started worker, and whether it has exited. */
function observedPool(idleMs?: number, more: { workers?: number; nice?: number } = {}): { pool: ParsePool; workers: Worker[]; exited: Set<Worker> } {
  const workers: Worker[] = [];
  const exited = new Set<Worker>();
  const pool = createParsePool({
    ...more,
    ...(idleMs === undefined ? {} : { idleMs }),
    onWorkerStart: (worker) => {
      workers.push(worker);
      worker.once('exit', () => exited.add(worker));
    },
  });
  return { pool, workers, exited };
}

/** Real worker threads running the real tree-sitter WASM over the fixture repository. */
describe('createParsePool', () => {
  const pools: ParsePool[] = [];
  afterAll(() => Promise.all(pools.map((pool) => pool.close())));

  it('answers exactly what fileSymbols with in-process parsers answers, in request order', async () => {
    const { pool, workers } = observedPool();
    pools.push(pool);
    const texts = await Promise.all(FIXTURE_FILES.map(fixtureText));
    const expected = await Promise.all(FIXTURE_FILES.map((path, i) => inProcess(path, texts[i]!)));
    // The fixtures hold real definitions (the comparison is not of empty lists), and README.md is no source.
    expect(expected.filter((defs) => defs.length > 0)).toHaveLength(FIXTURE_FILES.length - 1);
    expect(expected.at(-1)).toEqual([]);
    const order: string[] = [];
    const answers = await Promise.all(
      FIXTURE_FILES.map((path, i) => pool.symbolsOf(path, texts[i]!).then((defs) => (order.push(path), defs))),
    );
    expect(answers).toEqual(expected);
    expect(order).toEqual(FIXTURE_FILES);
    // All of it on one worker, which stays for the next request.
    expect(workers).toHaveLength(1);
    expect(pool.workerCount).toBe(1);
  });

  it('matches ast patterns in the worker exactly as in-process, interleaved with symbol requests on the one worker', async () => {
    const { pool, workers } = observedPool();
    pools.push(pool);
    const matcher = inProcessAstMatcher(new TreeSitterParsers());
    const texts = await Promise.all(FIXTURE_FILES.map(fixtureText));
    for (const pattern of ['console.log($$$)', 'fn $NAME($$$) { $$$ }', 'if ($X) { $$$ }', 'not even ( code']) {
      const expected = await Promise.all(FIXTURE_FILES.map((path, i) => matcher(pattern, path, texts[i]!)));
      const [answers] = await Promise.all([
        Promise.all(FIXTURE_FILES.map((path, i) => pool.astMatcher(pattern, path, texts[i]!))),
        pool.symbolsOf(FIXTURE_FILES[0]!, texts[0]!),
      ]);
      expect({ pattern, answers }).toEqual({ pattern, answers: expected });
    }
    // Real matches were compared, not only empty lists.
    expect((await pool.astMatcher('console.log($$$)', 'src/widgets.ts', await fixtureText('src/widgets.ts'))).map((hit) => hit.line)).toEqual([25]);
    expect(workers).toHaveLength(1);
  });

  it('terminates the worker after idleMs without a request; the next request starts a fresh one', async () => {
    const { pool, workers, exited } = observedPool(150);
    pools.push(pool);
    const text = await fixtureText('c/ring.c');
    const expected = await inProcess('c/ring.c', text);
    expect(await pool.symbolsOf('c/ring.c', text)).toEqual(expected);
    expect(pool.workerCount).toBe(1);
    await waitFor(() => exited.has(workers[0]!), { what: 'the idle worker to exit' });
    expect(pool.workerCount).toBe(0);
    expect(await pool.symbolsOf('c/ring.c', text)).toEqual(expected);
    expect(workers).toHaveLength(2);
    expect(workers[1]!.threadId).not.toBe(workers[0]!.threadId);
    expect(pool.workerCount).toBe(1);
  });

  it('warm() starts the worker before any request, which then runs on it; an unused warm worker ends when idle', async () => {
    const { pool, workers, exited } = observedPool(150);
    pools.push(pool);
    pool.warm();
    expect([workers.length, pool.workerCount]).toEqual([1, 1]);
    pool.warm(); // one is alive: no second
    expect(workers).toHaveLength(1);
    const text = await fixtureText('c/ring.c');
    expect(await pool.symbolsOf('c/ring.c', text)).toEqual(await inProcess('c/ring.c', text));
    expect(workers).toHaveLength(1);
    await waitFor(() => exited.has(workers[0]!), { what: 'the idle worker to exit' });
    expect(pool.workerCount).toBe(0);
  });

  it('a request keeps the worker: the idle clock starts after the last answer', async () => {
    // The idle clock is faked, so a loaded machine's late timers cannot make a gap look longer than it was.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { pool, workers, exited } = observedPool(1000);
      pools.push(pool);
      const text = await fixtureText('src/widgets.ts');
      for (let i = 0; i < 6; i++) {
        await pool.symbolsOf('src/widgets.ts', text);
        vi.advanceTimersByTime(999);
      }
      // Six times idleMs in all, never idleMs between two requests: still the first worker.
      expect([workers.length, exited.size, pool.workerCount]).toEqual([1, 0, 1]);
      const exit = new Promise((resolve) => workers[0]!.once('exit', resolve));
      vi.advanceTimersByTime(1); // idleMs since the last answer: the worker goes
      await exit;
      expect([workers.length, exited.size, pool.workerCount]).toEqual([1, 1, 0]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a worker killed mid-request answers [] for that request, and the queued one runs on a fresh worker', async () => {
    const { pool, workers, exited } = observedPool();
    pools.push(pool);
    const text = await fixtureText('go/main.go');
    const expected = await inProcess('go/main.go', text);
    const killed = pool.symbolsOf('go/main.go', text);
    const queued = pool.symbolsOf('go/main.go', text);
    await workers[0]!.terminate();
    expect(await killed).toEqual([]);
    expect(await queued).toEqual(expected);
    expect(exited.has(workers[0]!)).toBe(true);
    expect(workers).toHaveLength(2);
    expect(await pool.symbolsOf('go/main.go', text)).toEqual(expected);
  });

  it('a parse that throws answers [] and the next request gets a fresh worker', async () => {
    const { pool, workers } = observedPool();
    pools.push(pool);
    // A text that is not a string (the types forbid it) makes the worker's symbol extraction throw.
    expect(await pool.symbolsOf('src/widgets.ts', 42 as unknown as string)).toEqual([]);
    const text = await fixtureText('src/widgets.ts');
    expect(await pool.symbolsOf('src/widgets.ts', text)).toEqual(await inProcess('src/widgets.ts', text));
    expect(workers).toHaveLength(2);
  });

  it('close() answers pending requests [] and every later one, and ends the worker', async () => {
    const { pool, workers, exited } = observedPool();
    const text = await fixtureText('cpp/shapes.cpp');
    const pending = [pool.symbolsOf('cpp/shapes.cpp', text), pool.symbolsOf('cpp/shapes.cpp', text)];
    await pool.close();
    expect(await Promise.all(pending)).toEqual([[], []]);
    expect(await pool.symbolsOf('cpp/shapes.cpp', text)).toEqual([]);
    expect(pool.workerCount).toBe(0);
    expect(exited.has(workers[0]!)).toBe(true);
    expect(workers).toHaveLength(1);
  });

  it('an idle pool does not keep the process alive (its timer and worker are unref’d)', async () => {
    // A process that parses once through a pool with a 10-minute idle time and never closes it: it must exit by itself.
    const script = [
      `import { createParsePool } from ${JSON.stringify(new URL('../../../adapters/search/parse-pool.ts', import.meta.url).href)};`,
      'const pool = createParsePool({ idleMs: 600_000 });',
      "const defs = await pool.symbolsOf('a.ts', 'export function f() {}\\n');",
      'console.log(JSON.stringify([pool.workerCount, defs.map((def) => def.name)]));',
    ].join('\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 15_000 });
    expect(JSON.parse(stdout)).toEqual([1, ['f']]);
  });

  it('health figures: exactly fileFigures with in-process parsers, over every fixture language', async () => {
    const { pool } = observedPool();
    pools.push(pool);
    const parsers = new TreeSitterParsers();
    const branchy = {
      'x/branchy.ts': "import { a } from './a.js';\nexport function f(x: number) { if (x && a) { for (;;) {} } return x ?? 0; }\n",
      'x/branchy.py': 'def f(x):\n    if x and not x or x:\n        return [y for y in x if y]\n',
    };
    const paths = [...FIXTURE_FILES, ...Object.keys(branchy)];
    const bytes = [
      ...(await Promise.all(FIXTURE_FILES.map((path) => readFile(new URL(path, FIXTURE))))),
      ...Object.values(branchy).map((text) => new TextEncoder().encode(text)),
    ];
    const expected = await Promise.all(paths.map((path, i) => fileFigures(path, bytes[i], parsers)));
    // Parsed complexity, symbols and imports were compared, not zeros (README.md has none).
    expect(expected.filter((figures) => figures.symbols > 0)).toHaveLength(paths.length - 1);
    expect(expected.slice(-2).map((figures) => figures.complexity)).toEqual([4, 5]); // if && for ??; if and or, a comprehension's for and if
    expect(expected.at(-2)!.imports).toEqual(['./a.js']);
    expect(await Promise.all(paths.map((path, i) => pool.figuresOf(path, bytes[i])))).toEqual(expected);
    expect(await pool.figuresOf('big.ts', undefined)).toEqual({ complexity: 0, symbols: 0, exports: 0, imports: [], generated: false });
  });

  it('with workers: 2, two requests run at once on two threads, both niced (Linux: per thread); the main thread is not', async () => {
    const { pool, workers } = observedPool(undefined, { workers: 2, nice: 7 });
    pools.push(pool);
    const texts = await Promise.all(FIXTURE_FILES.map(fixtureText));
    const expected = await Promise.all(FIXTURE_FILES.map((path, i) => inProcess(path, texts[i]!)));
    expect(await Promise.all(FIXTURE_FILES.map((path, i) => pool.symbolsOf(path, texts[i]!)))).toEqual(expected);
    expect([workers.length, pool.workerCount]).toEqual([2, 2]);
    // Each thread's nice value, field 19 of /proc/self/task/<tid>/stat: the two workers' 7, the rest 0. A
    // thread that ends between the listing and the read (an earlier test's worker winding down) is skipped.
    const nices = (
      await Promise.all(
        (await readdir('/proc/self/task')).map(async (tid) => {
          const stat = await readFile(`/proc/self/task/${tid}/stat`, 'utf8').catch((error: NodeJS.ErrnoException) => {
            if (error.code === 'ESRCH' || error.code === 'ENOENT') return undefined;
            throw error;
          });
          return stat === undefined ? undefined : Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
        }),
      )
    ).filter((nice) => nice !== undefined);
    expect(nices.filter((nice) => nice === 7)).toHaveLength(2);
    expect(nices.filter((nice) => nice !== 7 && nice !== 0)).toEqual([]);
  });

  it('a figures request whose worker dies answers the text-only figures, worked out in this thread', async () => {
    const { pool, workers } = observedPool();
    pools.push(pool);
    const bytes = await readFile(new URL('src/widgets.ts', FIXTURE));
    const parsed = await fileFigures('src/widgets.ts', bytes, new TreeSitterParsers());
    const textOnly = await fileFigures('src/widgets.ts', bytes, undefined);
    expect(textOnly).not.toEqual(parsed); // the fallback is told apart from a real answer
    const killed = pool.figuresOf('src/widgets.ts', bytes);
    await workers[0]!.terminate();
    expect(await killed).toEqual(textOnly);
    expect(await pool.figuresOf('src/widgets.ts', bytes)).toEqual(parsed);
  });
});
