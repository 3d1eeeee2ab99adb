/**
 * A page an agent wrote, opened from the daemon's own URL in a real browser, runs in an opaque origin
 * (runtime/http/served-bytes-headers.ts): it reads nothing of the daemon's origin and cannot write through the API,
 * even holding the token it was opened with.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startNodeServer, type NodeServer } from '../../runtime/node/server.ts';
import { sharedBrowser } from '../support/panel-browser.ts';
import { tempWorkspace, TEST_TOKEN, type TempWorkspace } from '../support/workspace.ts';

/** Tries what a hostile page would, and reports each outcome on its root element. */
const HOSTILE_SCRIPT = `
const out = { origin: self.origin };
try { localStorage.setItem('k', 'v'); out.storage = 'ok'; } catch (error) { out.storage = error.name; }
const token = new URLSearchParams(location.search).get('token');
fetch('/api/file?path=pwned.txt', {
  method: 'PUT',
  headers: { 'content-type': 'application/json', authorization: 'Bearer ' + token },
  body: JSON.stringify({ content: 'pwned' }),
}).then((response) => 'status ' + response.status, () => 'blocked')
  .then((put) => { out.put = put; document.documentElement.setAttribute('data-out', JSON.stringify(out)); });
`;
const HOSTILE_HTML = `<!doctype html><html><script>${HOSTILE_SCRIPT}</script></html>`;
const HOSTILE_SVG = `<svg xmlns="http://www.w3.org/2000/svg"><script><![CDATA[${HOSTILE_SCRIPT}]]></script></svg>`;

let workspace: TempWorkspace;
let server: NodeServer;

beforeAll(async () => {
  workspace = await tempWorkspace({ 'evil.html': HOSTILE_HTML, 'evil.svg': HOSTILE_SVG });
  server = await startNodeServer({ root: workspace.root, auth: { token: TEST_TOKEN }, host: '127.0.0.1', port: 0, watch: false });
});

afterAll(async () => {
  await server?.close();
  await workspace?.cleanup();
});

// (Intentic's raw route types by extension and serves .html as a download: its SVG is the page that renders.)
it.each(['/api/raw?path=evil.html', '/api/raw?path=evil.svg', '/workspace/raw?path=evil.svg'])('%s: scripts run, in an opaque origin that cannot write', async (route) => {
  const context = await (await sharedBrowser()).newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${server.url}${route}&token=${TEST_TOKEN}`);
    const out = await page.waitForFunction(() => document.documentElement.getAttribute('data-out'));
    expect(JSON.parse((await out.jsonValue()) as string)).toEqual({ origin: 'null', storage: 'SecurityError', put: 'blocked' });
  } finally {
    await context.close();
  }
  await expect(access(join(workspace.root, 'pwned.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
});
