/**
 * `npm run build`: the package as it ships (docs/package.md#the-build), into dist/build, a tree that mirrors the
 * repository's so every module finds its neighbours (worker threads, templates) where it did:
 * - tsc compiles adapters/, client/, core/, handlers/ and runtime/ to ES modules with `.d.ts` and source maps
 *   (tsconfig.build.json; `.ts` imports are rewritten to `.js`), without checking types again;
 * - the web panel is built and written in place of the placeholder runtime/panel/embedded-panel.js, so the Node
 *   daemon serves it without esbuild or the panel's sources, and a Worker bundled from the package carries it;
 * - templates/ is copied beside runtime/;
 * - a stamp records when, for `npm start`'s staleness check (runtime/ensure-built.mjs).
 *
 * Runs on Node from source (`node --import tsx runtime/package-build.ts`); a development tool, not shipped.
 */
import { spawnSync } from 'node:child_process';
import { cp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { buildPanel } from './panel/build-panel.ts';
import { projectRoot } from './worker-build.ts';

export const BUILD_DIR = 'dist/build';
/** Written last: its time is the build's, and its absence means no complete build. */
export const BUILD_STAMP = '.built';

export async function buildPackage(): Promise<{ ms: number }> {
  const started = performance.now();
  const out = join(projectRoot, BUILD_DIR);
  await rm(out, { recursive: true, force: true });
  // Emit only: the types are checked by `npm run typecheck` (npm test runs it; prepack runs it before this).
  const tsc = spawnSync(process.execPath, [join(projectRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--noCheck'], {
    cwd: projectRoot,
    stdio: 'inherit',
  });
  if (tsc.status !== 0) throw new Error(`tsc failed (exit ${tsc.status ?? tsc.signal})`);

  const { assets } = await buildPanel();
  const embedded = join(out, 'runtime/panel/embedded-panel.js');
  await writeFile(embedded, `// The web panel, built by runtime/package-build.ts (docs/panel.md#assets).\nexport const embeddedPanel = ${JSON.stringify(assets)};\n`);
  await rm(`${embedded}.map`, { force: true }); // tsc's map was of the placeholder

  await cp(join(projectRoot, 'templates'), join(out, 'templates'), { recursive: true });
  await writeFile(join(out, BUILD_STAMP), `${new Date().toISOString()}\n`);
  return { ms: performance.now() - started };
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (invokedDirectly) {
  try {
    const { ms } = await buildPackage();
    console.log(`built ${BUILD_DIR} in ${(ms / 1000).toFixed(1)} s`);
  } catch (error) {
    console.error(`build failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
