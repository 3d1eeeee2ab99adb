import { Miniflare } from 'miniflare';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkerBundle } from '../../runtime/worker-build.ts';
import { newPanelPage, openPanel, type PanelPage } from '../support/panel-browser.ts';

/**
 * The panel on Workers: the Worker bundle (runtime/worker-build.ts embeds the panel) in workerd through miniflare,
 * listening on a loopback port, driven by the run's shared Chromium. The tree and the editor work there, over a
 * workspace's Durable Object (its SQLite storage) at `/w/<id>/`; terminals say they need a machine.
 */

const SCRIPT = 'dist/test-worker-panel/worker.js'; // miniflare refuses a script outside its working folder
const TOKEN = 'worker-panel-token';

let mf: Miniflare;
let url: string;
let panel: PanelPage | undefined;

beforeAll(async () => {
  await buildWorkerBundle(SCRIPT);
  mf = new Miniflare({
    scriptPath: SCRIPT,
    modules: true,
    compatibilityDate: '2026-04-26', // as wrangler.toml
    bindings: { WORKSPACE_TOKEN: TOKEN },
    durableObjects: { WORKSPACES: { className: 'WorkspaceObject', useSQLite: true } },
    host: '127.0.0.1',
    port: 0,
  });
  url = `${(await mf.ready).href.replace(/\/$/, '')}/w/panel-test`; // one workspace's base path
});
afterAll(async () => {
  await mf?.dispose();
});
afterEach(async () => {
  await panel?.close();
  panel = undefined;
});

async function readWorkerFile(path: string): Promise<string> {
  const response = await fetch(`${url}/api/file?path=${encodeURIComponent(path)}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { content: string }).content;
}

describe('the panel served by the Worker bundle in workerd', () => {
  it('signs in, shows the tree, and opens, edits and saves a file in the editor', async () => {
    panel = await newPanelPage('worker');
    await openPanel(panel, `${url}/?token=${TOKEN}`);
    const readme = panel.page.getByRole('treeitem', { name: /README\.md/ });
    await readme.waitFor();
    await panel.screenshot('tree');

    await readme.dblclick();
    await panel.page.waitForFunction(() => document.querySelector('.cm-content')?.textContent?.includes('Welcome to workspace-api'));
    await panel.screenshot('editor');

    const before = await readWorkerFile('README.md');
    await panel.page.click('.cm-content');
    await panel.page.keyboard.press('Control+Home');
    await panel.page.keyboard.type('edited on the edge\n');
    await panel.page.keyboard.press('Control+s');
    await expect.poll(() => readWorkerFile('README.md')).toBe(`edited on the edge\n${before}`);
    await panel.screenshot('saved');
    expect(panel.errors).toEqual([]);
    expect(panel.external).toEqual([]);
  });
});
