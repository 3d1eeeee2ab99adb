/**
 * Bundles the Workers entry (runtime/worker.ts) into one ES module for workerd.
 *
 * This file runs on Node (it drives esbuild); it is not part of the worker's import graph. The flags are the
 * ones workerd needs (docs/architecture.md#cloudflare-workers): platform "neutral" so esbuild assumes no Node builtins — an import of one
 * fails the build instead of being left external — and the workerd/worker/browser export conditions so
 * dependencies pick their Web builds.
 *
 * CLI: `node --import tsx runtime/worker-build.ts [outfile]` (default dist/worker.js) — `npm run build:worker`.
 */
import { build, type BuildOptions, type Metafile, type Plugin } from 'esbuild';
import { buildPanel } from './panel/build-panel.ts';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The project folder (this file lives in runtime/). Metafile paths are relative to it. */
export const projectRoot = fileURLToPath(new URL('..', import.meta.url));

export const workerEntry = 'runtime/worker.ts';

export const workerBuildOptions = {
  entryPoints: [workerEntry],
  absWorkingDir: projectRoot,
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  conditions: ['workerd', 'worker', 'browser'],
  mainFields: ['module', 'main'],
  // file-type's core (classify, docs/intentic-projects.md#classify) reaches `debug` through @tokenizer/inflate; its Node build
  // needs tty and util, its browser build nothing (the package's own `browser` field, which mainFields skips).
  alias: { debug: 'debug/src/browser.js' },
  target: 'es2022',
  sourcemap: false,
  logLevel: 'silent', // errors are thrown (and printed by the CLI below)
} satisfies BuildOptions;

/**
 * Puts the built panel in place of runtime/panel/embedded-panel.ts (a placeholder exporting `undefined`), so the
 * Worker serves the panel from its own bundle (docs/panel.md#assets). Every asset is text: it goes in as a string.
 */
function embedPanel(): Plugin {
  return {
    name: 'embed-panel',
    setup(pluginBuild) {
      pluginBuild.onLoad({ filter: /[\\/]runtime[\\/]panel[\\/]embedded-panel\.ts$/ }, async () => {
        const { assets } = await buildPanel();
        return { contents: `export const embeddedPanel = ${JSON.stringify(assets)};\n`, loader: 'js' };
      });
    },
  };
}

/** Builds the bundle at `outfile` and returns esbuild's metafile (the import graph, for the edge-clean test). */
export async function bundleWorker(outfile: string): Promise<Metafile> {
  const result = await build({ ...workerBuildOptions, plugins: [embedPanel()], outfile: resolve(projectRoot, outfile), metafile: true });
  return result.metafile;
}

export async function buildWorkerBundle(outfile: string): Promise<void> {
  await bundleWorker(outfile);
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (invokedDirectly) {
  const outfile = process.argv[2] ?? 'dist/worker.js';
  try {
    await buildWorkerBundle(outfile);
    console.log(`worker bundle written to ${resolve(projectRoot, outfile)}`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  }
}
