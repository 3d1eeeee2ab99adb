/**
 * Starts a worker thread running a TypeScript module. `execArgv: ['--import', 'tsx']` does not reach a worker's
 * module loader on Node 20 ("Unknown file extension .ts"), so the worker boots from a one-line script that
 * registers tsx's loader in its own thread and then imports the module. Works under `npm start`, plain
 * `node --import tsx` and vitest alike (the scan pool can share it).
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

export function startTypeScriptWorker(moduleUrl: URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  const boot =
    `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(moduleUrl.href)}); })`;
  return new Worker(boot, { ...options, eval: true });
}
