import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newPanelPage, openPanel, startPanelDaemon, type PanelDaemon, type PanelPage } from '../support/panel-browser.ts';

/** The panel's front door in a real browser: the printed URL signs in, the token leaves the address bar, a missing or wrong token shows the sign-in screen. */

let daemon: PanelDaemon;
let panel: PanelPage | undefined;

beforeAll(async () => {
  daemon = await startPanelDaemon({ 'README.md': '# hello\n' });
});
afterAll(async () => {
  await daemon?.close();
});
afterEach(async () => {
  await panel?.close();
  panel = undefined;
});

describe('sign-in', () => {
  it('the printed URL opens the panel, and the token leaves the address bar but stays for the tab', async () => {
    panel = await newPanelPage('sign-in-url');
    await openPanel(panel, daemon.signInUrl);
    expect(panel.page.url()).toBe(`${daemon.url}/`);
    await panel.screenshot('signed-in');
    // A reload (no token in the URL any more) stays signed in: the tab kept it.
    await panel.page.reload();
    await panel.page.waitForSelector('#panel[data-ready="true"]');
    expect(await panel.page.evaluate(() => localStorage.length)).toBe(0);
    expect(panel.errors).toEqual([]);
    expect(panel.external).toEqual([]);
  });

  it('without a token the sign-in screen says so, and a pasted token signs in', async () => {
    panel = await newPanelPage('sign-in-missing');
    await openPanel(panel, `${daemon.url}/`, { signIn: true });
    expect(await panel.page.getAttribute('.sign-in', 'data-reason')).toBe('missing');
    await panel.screenshot('missing');
    await panel.page.fill('input[name=token]', daemon.token);
    await panel.page.click('.sign-in-form button[type=submit]');
    await panel.page.waitForSelector('#panel[data-ready="true"]');
    // The one 401 the probe got is the browser's own console line; nothing the panel threw.
    expect(panel.errors.filter((line) => !line.includes('401'))).toEqual([]);
  });

  it('a wrong token shows the sign-in screen with the refusal', async () => {
    panel = await newPanelPage('sign-in-wrong');
    await openPanel(panel, `${daemon.url}/?token=wrong`, { signIn: true });
    expect(await panel.page.getAttribute('.sign-in', 'data-reason')).toBe('refused');
    expect(await panel.page.textContent('.sign-in-reason')).toBe('The token this page had was refused.');
    expect(panel.page.url()).toBe(`${daemon.url}/`);
    await panel.screenshot('refused');
    expect(panel.errors.filter((line) => !line.includes('401'))).toEqual([]);
  });

  it('a token refused later (the daemon answers 401 mid-session) reloads to the sign-in screen: nothing of the session is left', async () => {
    panel = await newPanelPage('sign-in-refused-later');
    const { page } = panel;
    await openPanel(panel, daemon.signInUrl);
    await page.evaluate(() => Object.assign(window, { oldSession: true }));
    // From now on the daemon refuses every call but the page and its files (as after a restart with another token).
    await page.route(
      (url) => url.pathname !== '/' && !url.pathname.startsWith('/panel/'),
      (route) => route.fulfill({ status: 401, contentType: 'application/json', body: '{"error":"unauthorized"}' }),
    );
    // Quick open asks the daemon at once: the refusal.
    await page.keyboard.press('Control+p');
    await page.waitForSelector('.sign-in[data-reason="refused"]');
    expect(await page.textContent('.sign-in-reason')).toBe('The token this page had was refused.');
    // A fresh page (the old one's listeners, streams and dialogs went with it), and the token is forgotten.
    expect(await page.evaluate(() => 'oldSession' in window)).toBe(false);
    expect(await page.evaluate(() => sessionStorage.getItem('workspace-api.token'))).toBeNull();
    await panel.screenshot('refused-later');
    await page.keyboard.press('Control+p');
    expect(await page.evaluate(() => document.querySelectorAll('dialog').length)).toBe(0);
    expect(await page.$('#panel[data-ready]')).toBeNull();
    expect(panel.errors.filter((line) => !line.includes('401'))).toEqual([]);
  });
});

describe('the pages themselves', () => {
  it('/ sends a strict content policy and no referrer; a bundle is cached for good', async () => {
    const page = await fetch(`${daemon.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    const script = /src="panel\/(app-[A-Za-z0-9]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const bundle = await fetch(`${daemon.url}/panel/${script}`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(bundle.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    // Unread, the bundle would hold its connection open past the daemon's close (a paused socket never sees the end).
    await bundle.body?.cancel();
    const again = await fetch(`${daemon.url}/panel/${script}`, { headers: { 'if-none-match': bundle.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('unknown or climbing asset names are 404, and the page needs its trailing slash', async () => {
    for (const name of ['nope.js', '..%2Fpackage.json', 'chunks/../x.js', '.hidden']) {
      const response = await fetch(`${daemon.url}/panel/${name}`);
      expect(response.status, name).toBe(404);
      expect(await response.json()).toEqual({ error: 'not found' });
    }
  });

  it('/docs renders the API reference offline from /openapi.json', async () => {
    panel = await newPanelPage('docs');
    await panel.page.goto(`${daemon.url}/docs`);
    // Route summaries from the document, drawn by the renderer inside its element (the page carries none of them).
    const reference = panel.page.locator('rapi-doc');
    await reference.getByText('liveness; needs no token').first().waitFor({ timeout: 15_000 });
    await expect(reference.getByText('the web panel (an HTML page; it asks for the token itself)').first().count()).resolves.toBe(1);
    await panel.screenshot('reference');
    expect(panel.external).toEqual([]);
    expect(panel.errors).toEqual([]);
  });
});
