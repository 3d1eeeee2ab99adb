/**
 * The panel's browser tests (test/panel/): a real daemon over a temp folder (the Node server with its panel), and
 * pages in the run's shared Chromium (./shared-browser.ts). Every page records its console errors, uncaught
 * exceptions and any request that leaves loopback (the panel must work offline), and keeps a screenshot of each
 * step under `.artifacts/panel/` for a person to look at.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll } from 'vitest';
import { createNodePanelAssets } from '../../runtime/node/node-panel-assets.ts';
import { buildPanel, type PanelBuild } from '../../runtime/panel/build-panel.ts';
import { startNodeServer, type NodeServer, type NodeServerOptions } from '../../runtime/node/server.ts';
import { projectRoot } from '../../runtime/worker-build.ts';
import { tempWorkspace, TEST_TOKEN, type TempWorkspace } from './workspace.ts';

export const ARTIFACTS = join(projectRoot, '.artifacts', 'panel');

let browser: Promise<Browser> | undefined;

/** The run's shared browser (connected once per test file, and disconnected as the file ends). */
export function sharedBrowser(): Promise<Browser> {
  const endpoint = process.env.WSAPI_TEST_BROWSER_WS;
  if (!endpoint) throw new Error('no shared browser: test/support/shared-browser.ts must be a vitest globalSetup');
  browser ??= chromium.connect(endpoint);
  return browser;
}

// Registered as this module loads, i.e. while the test file importing it is collected: hooks run last-registered
// first, so this runs after the file's own afterAll hooks have closed its pages. Closing a connected browser only
// disconnects (the run's browser stays for the other files).
afterAll(async () => {
  const connected = await browser?.catch(() => undefined);
  browser = undefined;
  await connected?.close();
});

/**
 * One panel build for the run, shared by the panel's test files through a file in the run's home (fresh each run, so
 * a source edit is always in it): the first file to need it builds it, the others read it. Two files starting
 * together may both build; each writes whole (a rename), so a reader never sees half of one.
 */
async function runPanelBuild(): Promise<PanelBuild> {
  const runHome = process.env.WSAPI_TEST_RUN_HOME;
  if (runHome === undefined) return buildPanel();
  const file = join(runHome, 'panel-build.json');
  try {
    return JSON.parse(await readFile(file, 'utf8')) as PanelBuild;
  } catch {
    const built = await buildPanel();
    await writeFile(`${file}.${process.pid}`, JSON.stringify(built));
    await rename(`${file}.${process.pid}`, file);
    return built;
  }
}

// Every daemon of a test file serves the run's one build.
export const panelAssets = createNodePanelAssets({ build: runPanelBuild });

export interface PanelDaemon {
  workspace: TempWorkspace;
  server: NodeServer;
  /** `http://127.0.0.1:PORT` */
  url: string;
  token: string;
  /** The URL the CLI prints: the panel with the token. */
  signInUrl: string;
  close(): Promise<void>;
}

/** A daemon over a fresh temp folder seeded with `files`, serving the panel. */
export async function startPanelDaemon(files: Record<string, string | Uint8Array> = {}, options: Partial<NodeServerOptions> = {}): Promise<PanelDaemon> {
  return startPanelDaemonOn(await tempWorkspace(files), options);
}

/** A daemon over a folder the test prepared (a git repo, say), serving the panel; `close` removes the folder. */
export async function startPanelDaemonOn(workspace: TempWorkspace, options: Partial<NodeServerOptions> = {}): Promise<PanelDaemon> {
  const server = await startNodeServer({ root: workspace.root, auth: { token: TEST_TOKEN }, host: '127.0.0.1', port: 0, panel: panelAssets, ...options });
  return {
    workspace,
    server,
    url: server.url,
    token: TEST_TOKEN,
    signInUrl: `${server.url}/?token=${TEST_TOKEN}`,
    async close() {
      await server.close();
      await workspace.cleanup();
    },
  };
}

export interface PanelPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and uncaught exceptions, in order. */
  errors: string[];
  /** Requests the page tried to make off loopback (refused). */
  external: string[];
  /** Saves `.artifacts/panel/<test>--<step>.png`. */
  screenshot(step: string): Promise<void>;
  close(): Promise<void>;
}

/** A fresh browser context (its own sessionStorage) and page; `name` prefixes its screenshots. */
export async function newPanelPage(name: string, viewport = { width: 1280, height: 800 }): Promise<PanelPage> {
  const context = await (await sharedBrowser()).newContext({ viewport });
  const errors: string[] = [];
  const external: string[] = [];
  await context.route(/.*/, (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || url.protocol === 'blob:' || url.hostname === '127.0.0.1' || url.hostname === 'localhost') return route.continue();
    external.push(url.href);
    return route.abort();
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`exception: ${error.message}`));
  let step = 0;
  return {
    page,
    context,
    errors,
    external,
    async screenshot(label) {
      await mkdir(ARTIFACTS, { recursive: true });
      step += 1;
      const file = `${name}--${String(step).padStart(2, '0')}-${label.replace(/[^A-Za-z0-9_-]+/g, '-')}.png`;
      await page.screenshot({ path: join(ARTIFACTS, file) });
    },
    close: () => context.close(),
  };
}

/** Opens `url` and waits until the panel has mounted (or drawn its sign-in screen, with `signIn`). */
export async function openPanel(panel: PanelPage, url: string, { signIn = false } = {}): Promise<void> {
  await panel.page.goto(url);
  await panel.page.waitForSelector(signIn ? '.sign-in' : '#panel[data-ready="true"]');
}
