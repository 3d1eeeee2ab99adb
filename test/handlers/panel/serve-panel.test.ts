import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodePanelAssets } from '../../../runtime/node/node-panel-assets.ts';
import { panelAssetsFrom, type PanelAsset } from '../../../runtime/panel/panel-assets.ts';
import { nodeApp, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

/** The panel's routes in-process (docs/panel.md#routes), over fixture assets: headers, redirects, validators, refusals. */

const asset = (body: string, contentType: string, immutable: boolean): PanelAsset => ({ body, contentType, immutable, etag: `"${body.length}-${immutable}"` });
const assets = {
  'index.html': asset('<!doctype html><title>panel</title>', 'text/html; charset=utf-8', false),
  'docs.html': asset('<!doctype html><title>docs</title>', 'text/html; charset=utf-8', false),
  'app-ABC123.js': asset('console.log(1)', 'text/javascript; charset=utf-8', true),
  'chunks/lang-XYZ.js': asset('export {}', 'text/javascript; charset=utf-8', true),
};

let workspace: TempWorkspace;
beforeAll(async () => {
  workspace = await tempWorkspace();
});
afterAll(async () => {
  await workspace?.cleanup();
});

const get = (app: ReturnType<typeof nodeApp>, path: string, headers: Record<string, string> = {}) =>
  app.fetch(new Request(`http://localhost${path}`, { headers }));

describe('the panel routes', () => {
  it('GET / is the page, public, with its policy; GET /docs the reference under the same policy', async () => {
    const app = nodeApp(workspace.root, { panel: panelAssetsFrom(assets) });
    const page = await get(app, '/');
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('<!doctype html><title>panel</title>');
    expect(Object.fromEntries(page.headers)).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'content-security-policy':
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' blob: data:; media-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    });
    const docs = await get(app, '/docs');
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-security-policy')).toBe(page.headers.get('content-security-policy'));
    await app.close();
  });

  it('bundles are cached for good, answer 304 to their tag, and carry no page policy; chunks are served too', async () => {
    const app = nodeApp(workspace.root, { panel: panelAssetsFrom(assets) });
    const script = await get(app, '/panel/app-ABC123.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(script.headers.get('content-security-policy')).toBeNull();
    expect(await script.text()).toBe('console.log(1)');
    const again = await get(app, '/panel/app-ABC123.js', { 'if-none-match': script.headers.get('etag')! });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(await (await get(app, '/panel/chunks/lang-XYZ.js')).text()).toBe('export {}');
    await app.close();
  });

  it('under a base path the page wants its trailing slash (308), and its files resolve under it', async () => {
    const app = nodeApp(workspace.root, { panel: panelAssetsFrom(assets), basePath: '/gw/ws1' });
    const bare = await get(app, '/gw/ws1?x=1');
    expect(bare.status).toBe(308);
    expect(bare.headers.get('location')).toBe('/gw/ws1/?x=1');
    expect((await get(app, '/gw/ws1/')).status).toBe(200);
    expect((await get(app, '/gw/ws1/panel/app-ABC123.js')).status).toBe(200);
    expect((await get(app, '/panel/app-ABC123.js')).status).toBe(404);
    await app.close();
  });

  it('names that are not the bundle’s own are 404; without a panel every route says so', async () => {
    const app = nodeApp(workspace.root, { panel: panelAssetsFrom(assets) });
    for (const name of ['index.htm', 'chunks%2f..%2fapp-ABC123.js', '%2e%2e%2fpackage.json', 'chunks/', 'a/b/c.js', '.hidden.js']) {
      const response = await get(app, `/panel/${name}`);
      expect(response.status, name).toBe(404);
      expect(await response.json()).toEqual({ error: 'not found' });
    }
    await app.close();
    const bare = nodeApp(workspace.root);
    for (const path of ['/', '/docs', '/panel/app-ABC123.js']) {
      const response = await get(bare, path);
      expect(response.status, path).toBe(404);
      expect(await response.json()).toEqual({ error: 'this server has no web panel (started with --no-panel, or mounted without one)' });
    }
    await bare.close();
  });

  it('a failed build is a 503 that names no path, logged once, and not rebuilt on every request', async () => {
    const logged: string[] = [];
    let builds = 0;
    const panel = createNodePanelAssets({
      log: (line) => logged.push(line),
      build: async () => {
        builds += 1;
        throw new Error('Could not resolve "/srv/secret/client/panel/main.ts"');
      },
    });
    const app = nodeApp(workspace.root, { panel });
    for (let i = 0; i < 3; i++) {
      const response = await get(app, '/');
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ error: "the web panel could not be built; the server's log says why" });
    }
    expect(builds).toBe(1);
    expect(logged).toEqual(['workspace-api: the web panel could not be built: Could not resolve "/srv/secret/client/panel/main.ts"']);
    await app.close();
  });
});
