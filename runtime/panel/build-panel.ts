/**
 * Builds the web panel (client/panel, docs/panel.md#assets) into a map of named assets: esbuild bundles the panel's
 * TypeScript and CSS (code split, so editor languages load when a file needs them), the page and the API reference
 * page are written around the hashed names, and the reference renderer (RapiDoc's one-file build, from npm) is
 * copied in. Nothing is fetched: everything comes from node_modules.
 *
 * Runs on Node (it drives esbuild and reads files): the Node server builds on demand (runtime/node/node-panel-assets.ts),
 * the Worker build embeds the result (runtime/worker-build.ts). Not part of any handler's import graph.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { PanelAsset, PanelAssetMap } from './panel-assets.ts';
import { docsPageHtml, panelPageHtml } from './panel-html.ts';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
export const panelEntry = 'client/panel/main.ts';
const OUT_DIR = 'panel-out'; // virtual: nothing is written

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

export interface PanelBuild {
  assets: PanelAssetMap;
  /** How long the build took and how big its scripts are, for the start-up log and the budget test. */
  ms: number;
}

export async function buildPanel(): Promise<PanelBuild> {
  const started = performance.now();
  const result = await build({
    entryPoints: { app: panelEntry },
    absWorkingDir: projectRoot,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    outdir: OUT_DIR,
    entryNames: '[name]-[hash]',
    chunkNames: 'chunks/[name]-[hash]',
    assetNames: '[name]-[hash]',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const assets: Record<string, PanelAsset> = {};
  let script = '';
  let style = '';
  for (const file of result.outputFiles) {
    const name = relative(`${projectRoot}${OUT_DIR}`, file.path).split('\\').join('/');
    assets[name] = asset(file.text, contentTypeOf(name), true);
    if (!name.startsWith('chunks/') && name.endsWith('.js')) script = name;
    if (!name.startsWith('chunks/') && name.endsWith('.css')) style = name;
  }
  if (!script) throw new Error('the panel bundle has no entry script');

  const reference = await referenceRenderer();
  let referenceScript: string | undefined;
  if (reference !== undefined) {
    referenceScript = `rapidoc-${hashOf(reference).slice(0, 8)}.js`;
    assets[referenceScript] = asset(reference, CONTENT_TYPES['.js']!, true);
  }
  assets['index.html'] = asset(panelPageHtml({ script, style }), CONTENT_TYPES['.html']!, false);
  assets['docs.html'] = asset(docsPageHtml({ renderer: referenceScript }), CONTENT_TYPES['.html']!, false);
  return { assets, ms: performance.now() - started };
}

/**
 * RapiDoc (a web component, one self-contained file of ~0.2 MiB gzipped) renders the API reference. It was picked
 * for its size: the package ships it inside the panel, and the npm tarball and a free Worker both have a budget
 * (docs/panel.md#api-reference). A development dependency: the build copies the file, nothing imports it.
 */
async function referenceRenderer(): Promise<string | undefined> {
  try {
    // The package names no exports; its main entry is the minified build itself.
    return await readFile(createRequire(import.meta.url).resolve('rapidoc/dist/rapidoc-min.js'), 'utf8');
  } catch {
    return undefined;
  }
}

function asset(body: string, contentType: string, immutable: boolean): PanelAsset {
  return { body, contentType, immutable, etag: `"${hashOf(body).slice(0, 27)}"` };
}

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

function contentTypeOf(name: string): string {
  const extension = basename(name).slice(basename(name).lastIndexOf('.'));
  return CONTENT_TYPES[extension] ?? 'application/octet-stream';
}
