/**
 * Starts a worker thread on a TypeScript entry file. The project runs TypeScript through tsx, but on Node 20 a
 * worker does not inherit the parent's tsx loader, and `execArgv: ['--import', 'tsx']` on the Worker is not
 * honoured either (checked here: "Unknown file extension .ts", under `node --import tsx` and under vitest).
 * So the worker starts from a two-line ES module that registers tsx's ESM hooks in the worker itself
 * (`tsx/esm/api`), then imports the entry. Works the same under `npm start`, vitest and the benches
 * (≈ 250 ms per worker start on this machine: start workers once and reuse them).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** tsx's ESM API module (its `import` export: the `require` one would register the CommonJS hooks). */
const tsxApi = (() => {
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const exported: string = JSON.parse(readFileSync(manifest, 'utf8')).exports['./esm/api'].import.default;
  return new URL(exported, pathToFileURL(manifest)).href;
})();

export function startTsWorker(entry: URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  const bootstrap = `import { register } from ${JSON.stringify(tsxApi)};\nregister();\nawait import(${JSON.stringify(entry.href)});\n`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), options);
}
