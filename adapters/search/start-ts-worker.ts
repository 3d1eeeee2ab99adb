/**
 * Starts a worker thread on a TypeScript entry file. The project runs TypeScript through tsx, but on Node 20 a
 * worker does not inherit the parent's tsx loader, and `execArgv: ['--import', 'tsx']` on the Worker is not
 * honoured either ("Unknown file extension .ts", under `node --import tsx` and under vitest).
 *
 * So the entry's module graph is bundled into one ES module with esbuild (the compiler tsx itself runs on), once
 * per entry per process (~15–30 ms), and every worker of that entry starts from the bundle as a `data:` URL.
 * Registering tsx's hooks inside each worker instead (what this did before) gave every worker its own hooks
 * thread and a transpile per module: ~250 ms and ~250 ms of CPU per start, on the critical path of the first
 * search after start (three workers start then). A bundled start costs ~60 ms.
 *
 * - Everything is bundled, packages too (a `data:` module cannot resolve a bare specifier); what a worker loads at
 *   run time by absolute path (tree-sitter's runtime and grammars, located with `createRequire`) stays outside.
 * - `import.meta.url` in the bundle is the entry's own URL (a `data:` URL would resolve nothing): the worker
 *   modules that use it do so only to locate packages, which resolve the same from any file of this folder.
 */
import type * as Esbuild from 'esbuild';
import { createRequire } from 'node:module';
import { Worker, type WorkerOptions } from 'node:worker_threads';

const bundles = new Map<string, URL>();

/** Built to JavaScript (this module is a `.js` file): the entry sits beside its source name as `.js`, runnable as it is. */
const runsBuilt = import.meta.url.endsWith('.js');

export function startTsWorker(entry: URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  return new Worker(runsBuilt ? new URL(entry.href.replace(/\.ts$/, '.js')) : bundled(entry), options);
}

function bundled(entry: URL): URL {
  let url = bundles.get(entry.href);
  if (url === undefined) {
    // Required here, not imported at the top: esbuild is a development dependency, absent where the package is
    // installed (that runs the built `.js` entries above).
    const { buildSync } = createRequire(import.meta.url)('esbuild') as typeof Esbuild;
    const built = buildSync({
      entryPoints: [decodeURIComponent(entry.pathname)],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      write: false,
      logLevel: 'silent',
      define: { 'import.meta.url': JSON.stringify(entry.href) },
    });
    url = new URL(`data:text/javascript;base64,${Buffer.from(built.outputFiles[0]!.contents).toString('base64')}`);
    bundles.set(entry.href, url);
  }
  return url;
}
