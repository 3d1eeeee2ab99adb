/**
 * vitest globalSetup: one headless Chromium for the whole run (the panel's browser tests, test/panel/), Debian's
 * `/usr/bin/chromium` driven by playwright-core — never a downloaded browser. Test files connect to it over its
 * WebSocket endpoint (test/support/panel-browser.ts), each in contexts of its own, so a run starts one browser
 * however many panel test files there are. Forked test workers inherit the endpoint through the environment.
 */
import { chromium, type BrowserServer } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

export default async function setup(): Promise<() => Promise<void>> {
  const server: BrowserServer = await chromium.launchServer({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
  process.env.WSAPI_TEST_BROWSER_WS = server.wsEndpoint();
  return async () => {
    delete process.env.WSAPI_TEST_BROWSER_WS;
    await server.close();
  };
}
