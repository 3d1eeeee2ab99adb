/**
 * (panel) The web panel's first load in headless Chromium (Debian's, via playwright-core), each load in a fresh
 * browser context (a cold cache, as a first visit is): OUR daemon serving `/?token=…` vs a bare `node:http` server
 * serving the very same built files from memory. Two figures per side where they exist:
 * - `load`: the page's load event (HTML, script and style fetched and run): ours vs the bare server, like for like;
 * - `ready`: the panel mounted (the token checked, the tree listed; the `panel-ready` mark), ours only, against the
 *   issue's budget of 1 s.
 * And the JavaScript the first load fetches, gzipped, against the 1 MiB budget. RUNS loads per side, interleaved.
 * Then the live tree: a file written on disk (node:fs, as an editor or a shell would) until its row shows in the
 * tree of an open panel, LIVE_RUNS times, against the "within a second".
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { buildPanel } from '../runtime/panel/build-panel.ts';
import type { PanelAssetMap } from '../runtime/panel/panel-assets.ts';
import { startChildServer } from './lib/child-server.ts';
import { log } from './lib/log.ts';
import type { Figure } from './lib/result.ts';
import { median, sampleRoundRobin } from './lib/stats.ts';

const RUNS = 9;
const LIVE_RUNS = 15;
const BUDGET_MS = 1000;
const BUDGET_JS_BYTES = 1024 * 1024;

interface Load {
  load: number;
  ready: number | undefined;
  scriptBytes: number;
}

export async function benchPanel(token: string): Promise<Figure[]> {
  const { assets } = await buildPanel();
  // A small workspace of its own: the live figure writes files into it.
  const root = await mkdtemp(join(tmpdir(), 'wsapi-bench-panel-'));
  for (let i = 0; i < 20; i++) await writeFile(join(root, `file-${i}.txt`), `file ${i}\n`);
  const anchor = await serveStatic(assets);
  const ours = await startChildServer('ours', 'ours', { BENCH_ROOT: root, BENCH_TOKEN: token, BENCH_PANEL: '1' });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const anchorUrl = `http://127.0.0.1:${(anchor.address() as AddressInfo).port}/`;
    const [oursLoads, anchorLoads] = await sampleRoundRobin(RUNS, [
      () => firstLoad(browser, `${ours.baseUrl}/?token=${token}`, true),
      () => firstLoad(browser, anchorUrl, false),
    ]);
    const pick = (loads: Load[], key: 'load' | 'ready') => loads.map((l) => l[key] ?? Number.NaN);
    log(`panel load ours [${pick(oursLoads!, 'load').map((v) => v.toFixed(0)).join(', ')}] ms, bare [${pick(anchorLoads!, 'load').map((v) => v.toFixed(0)).join(', ')}] ms`);
    log(`panel ready ours [${pick(oursLoads!, 'ready').map((v) => v.toFixed(0)).join(', ')}] ms`);
    const scriptGzip = firstLoadScriptGzip(assets);
    const live = await liveTree(browser, `${ours.baseUrl}/?token=${token}`, root);
    log(`panel live tree: disk write → row shown [${live.map((v) => v.toFixed(0)).join(', ')}] ms`);
    return [
      { figure: 'panel first load (load event)', unit: 'ms', ours: median(pick(oursLoads!, 'load')), anchor: median(pick(anchorLoads!, 'load')), higherIsBetter: false, note: `cold context × ${RUNS}; anchor = bare node:http serving the same files` },
      { figure: 'panel first load (mounted, tree listed)', unit: 'ms', ours: median(pick(oursLoads!, 'ready')), anchor: BUDGET_MS, higherIsBetter: false, note: 'anchor = the 1 s budget' },
      { figure: 'panel live tree: disk write → row shown', unit: 'ms', ours: median(live), anchor: BUDGET_MS, higherIsBetter: false, note: `median of ${LIVE_RUNS}; anchor = the 1 s budget` },
      { figure: 'panel first-load JavaScript, gzipped', unit: 'KiB', ours: scriptGzip / 1024, anchor: BUDGET_JS_BYTES / 1024, higherIsBetter: false, note: 'entry script and the chunks it imports statically; anchor = the 1 MiB budget' },
    ];
  } finally {
    await browser.close();
    await ours.stop();
    await new Promise((resolve) => anchor.close(resolve));
    await rm(root, { recursive: true, force: true });
  }
}

async function liveTree(browser: Browser, url: string, root: string): Promise<number[]> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url);
    await page.waitForSelector('#panel[data-change-feed="ready"]');
    const samples: number[] = [];
    for (let i = 0; i < LIVE_RUNS; i++) {
      const name = `live-${i}.txt`;
      const started = performance.now();
      await writeFile(join(root, name), 'x');
      await page.waitForSelector(`[role=treeitem][data-path="${name}"]`);
      samples.push(performance.now() - started);
    }
    return samples;
  } finally {
    await context.close();
  }
}

async function firstLoad(browser: Browser, url: string, mounts: boolean): Promise<Load> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    if (mounts) await page.waitForSelector('#panel[data-ready="true"]');
    return await page.evaluate(() => {
      const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      const ready = performance.getEntriesByName('panel-ready')[0]?.startTime;
      const scripts = performance.getEntriesByType('resource').filter((r) => r.name.endsWith('.js')) as PerformanceResourceTiming[];
      return { load: navigation.loadEventEnd, ready, scriptBytes: scripts.reduce((sum, r) => sum + r.decodedBodySize, 0) };
    });
  } finally {
    await context.close();
  }
}

/** The entry script and every chunk it imports statically (what a first load runs before the panel mounts). */
function firstLoadScriptGzip(assets: PanelAssetMap): number {
  const entry = Object.keys(assets).find((name) => /^app-.*\.js$/.test(name));
  if (!entry) throw new Error('no entry script');
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name) || !assets[name]) return;
    seen.add(name);
    for (const match of assets[name].body.matchAll(/(?:^|[;}])\s*import\s*(?:[\w{},*\s$]+from\s*)?["']\.\/([^"']+)["']/g)) {
      visit(name.includes('/') ? `${name.slice(0, name.lastIndexOf('/') + 1)}${match[1]}` : match[1]!);
    }
  };
  visit(entry);
  return [...seen].reduce((sum, name) => sum + gzipSync(assets[name]!.body).length, 0);
}

function serveStatic(assets: PanelAssetMap): Promise<Server> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    const name = path === '/' ? 'index.html' : path.replace(/^\/panel\//, '');
    const asset = assets[name];
    if (!asset) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': asset.contentType }).end(asset.body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
