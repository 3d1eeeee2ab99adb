/**
 * Builds the web panel (client/panel, docs/panel.md#assets) into a map of named assets: esbuild bundles the panel's
 * TypeScript and CSS (code split, so editor languages load when a file needs them), the page and the API reference
 * page are written around the hashed names, and the reference renderer (Scalar's standalone build, from npm) is
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
    referenceScript = `scalar-${hashOf(reference).slice(0, 8)}.js`;
    assets[referenceScript] = asset(reference, CONTENT_TYPES['.js']!, true);
  }
  const docsBoot = 'docs-boot.js';
  assets[docsBoot] = asset(DOCS_BOOT, CONTENT_TYPES['.js']!, false);
  assets['index.html'] = asset(panelPageHtml({ script, style }), CONTENT_TYPES['.html']!, false);
  assets['docs.html'] = asset(docsPageHtml({ renderer: referenceScript, boot: docsBoot }), CONTENT_TYPES['.html']!, false);
  return { assets, ms: performance.now() - started };
}

/**
 * Scalar's API reference, its standalone browser build (one self-contained file). A development dependency until
 * the package ships built assets; without it `/docs` says so and links the raw document.
 */
async function referenceRenderer(): Promise<string | undefined> {
  try {
    // The package's exports name no file of its dist/browser/; its main entry sits in dist/ beside it.
    const main = createRequire(import.meta.url).resolve('@scalar/api-reference');
    return await readFile(join(dirname(main), 'browser', 'standalone.js'), 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Starts the reference on the document beside it. Its own file because the page's policy allows no inline script;
 * no default fonts (they come from Scalar's CDN), no proxy, no telemetry: the page works offline.
 */
const DOCS_BOOT = `const root = document.getElementById('reference');
if (globalThis.Scalar && root) {
  globalThis.Scalar.createApiReference(root, {
    url: new URL('openapi.json', document.baseURI).href,
    withDefaultFonts: false,
    hideClientButton: true,
    telemetry: false,
    showDeveloperTools: 'never',
    agent: { disabled: true },
    mcp: { disabled: true },
  });
}
`;

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
