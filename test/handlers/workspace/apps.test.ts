/**
 * `GET /workspace/repos/{repo}/apps` and `POST …/apps/{app}/start|stop` through Intentic's client, over the real
 * project model, a real pty and real dev servers (`node server.js` reading PORT): healthy on its previewUrl, and
 * after stop the whole tree is gone — also the server that setsid'd out of the terminal's session — so the port is
 * free at once. A dev server that never listens stays unhealthy without hanging the call.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { orpcFailure } from '../../support/intentic-contract.ts';
import { OFFLINE_NPMRC, useJobApp } from '../../support/job-app.ts';
import { isRunning, portRefused } from '../../support/processes.ts';

// Writes its pid, then listens on PORT (every interface) and answers any request.
const SERVER_JS = `require('node:fs').writeFileSync('pid', String(process.pid));
require('node:http').createServer((q, s) => s.end('hello from ' + process.env.PORT)).listen(Number(process.env.PORT), () => console.log('listening on ' + process.env.PORT));
`;

const jobs = useJobApp({
  'shop/package.json': JSON.stringify({ name: 'shop', private: true, workspaces: ['apps/*'] }),
  'shop/node_modules/.keep': '',
  // `setsid`: the server leaves the terminal's session, as a daemonising dev tool does.
  'shop/apps/web/package.json': JSON.stringify({ name: 'web', scripts: { dev: 'setsid node server.js' }, devDependencies: { vite: '*' } }),
  'shop/apps/web/server.js': SERVER_JS,
  'shop/apps/idle/package.json': JSON.stringify({ name: 'idle', scripts: { dev: 'node -e "console.log(\'up, not listening\'); setInterval(() => {}, 1000)"' } }),
  'fresh/package.json': JSON.stringify({ name: 'fresh', version: '1.0.0', scripts: { dev: 'node server.js' } }),
  'fresh/.npmrc': OFFLINE_NPMRC,
  'fresh/server.js': SERVER_JS,
});

const client = () => jobs.client;
const failure = orpcFailure;
const portIn = (text: string) => Number(/listening on (\d+)/.exec(text)![1]);

describe('apps', () => {
  it('lists the apps; start runs `npm run dev` on a free PORT, healthy on its previewUrl; stop kills the tree and frees the port at once', async () => {
    expect(await client().appsList({ repo: 'shop' })).toEqual({
      apps: [
        { app: 'idle', running: false, healthy: false },
        { app: 'web', running: false, healthy: false, kind: 'vite' },
      ],
    });
    expect(await client().startApp({ repo: 'shop', app: 'web' })).toEqual({ ok: true });
    const session = jobs.terminal('panel-shop--web')!;
    expect(session.info()).toMatchObject({ command: 'npm run dev', cwd: join(jobs.root, 'shop/apps/web'), running: true });
    const port = portIn(await session.waitForOutput(/listening on \d+/, { timeoutMs: 8000 }));
    expect(await client().startApp({ repo: 'shop', app: 'web' })).toEqual({ ok: true }); // running: left alone
    expect(jobs.terminal('panel-shop--web')).toBe(session);

    const listed = await client().appsList({ repo: 'shop' });
    expect(listed).toEqual({
      apps: [
        { app: 'idle', running: false, healthy: false },
        { app: 'web', running: true, healthy: true, kind: 'vite', previewUrl: `http://localhost:${port}/` },
      ],
    });
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe(`hello from ${port}`);

    const serverPid = Number(await readFile(join(jobs.root, 'shop/apps/web/pid'), 'utf8'));
    expect(isRunning(serverPid)).toBe(true);
    expect(await client().stopApp({ repo: 'shop', app: 'web' })).toEqual({ ok: true });
    expect(await portRefused(port)).toBe(true);
    expect(isRunning(serverPid)).toBe(false);
    expect((await client().appsList({ repo: 'shop' })).apps[1]).toEqual({ app: 'web', running: false, healthy: false, kind: 'vite' });
    expect(await client().stopApp({ repo: 'shop', app: 'web' })).toEqual({ ok: true }); // nothing runs
    expect(await client().stopApp({ repo: 'shop', app: 'idle' })).toEqual({ ok: true }); // never ran
  });

  it('a dev server that never listens: running, never healthy, the list answers within the probe limit, stop ends it', async () => {
    await client().startApp({ repo: 'shop', app: 'idle' });
    await jobs.terminal('panel-shop--idle')!.waitForOutput('up, not listening', { timeoutMs: 8000 }); // it runs, and will not listen
    const started = Date.now();
    const { apps } = await client().appsList({ repo: 'shop' });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(apps[0]).toEqual({ app: 'idle', running: true, healthy: false, previewUrl: expect.stringMatching(/^http:\/\/localhost:\d+\/$/) });
    await client().stopApp({ repo: 'shop', app: 'idle' });
    expect(jobs.terminal('panel-shop--idle')!.running).toBe(false);
  });

  it('without node_modules, the project installs first (in its install terminal), then the dev server starts', async () => {
    expect(await client().startApp({ repo: 'fresh', app: 'fresh' })).toEqual({ ok: true });
    const install = await jobs.terminalOnceStarted('panel-fresh--install');
    expect(install.info()).toMatchObject({ command: 'npm install', cwd: join(jobs.root, 'fresh') });
    const dev = await jobs.terminalOnceStarted('panel-fresh--fresh');
    expect((await install.exited).code).toBe(0);
    const port = portIn(await dev.waitForOutput(/listening on \d+/, { timeoutMs: 8000 }));
    expect((await client().appsList({ repo: 'fresh' })).apps).toEqual([{ app: 'fresh', running: true, healthy: true, previewUrl: `http://localhost:${port}/` }]);
  });

  it("the daemon's shutdown stops every dev server's whole tree", async () => {
    await client().startApp({ repo: 'shop', app: 'web' });
    const port = portIn(await jobs.terminal('panel-shop--web')!.waitForOutput(/listening on \d+/, { timeoutMs: 8000 }));
    const serverPid = Number(await readFile(join(jobs.root, 'shop/apps/web/pid'), 'utf8'));
    await jobs.app.close();
    expect(isRunning(serverPid)).toBe(false);
    expect(await portRefused(port)).toBe(true);
  });

  it('unknown app NOT_FOUND naming it; a malformed app name or repo BAD_REQUEST; an unknown repo NOT_FOUND', async () => {
    expect(await failure(client().startApp({ repo: 'shop', app: 'api' }))).toEqual({ code: 'NOT_FOUND', status: 404, message: 'no app named "api" in repo "shop"' });
    expect(await failure(client().startApp({ repo: 'shop', app: 'Web' }))).toEqual({
      code: 'BAD_REQUEST',
      status: 400,
      message: 'invalid app name "Web": it must match ^[a-z][a-z0-9-]*$',
    });
    expect(await failure(client().stopApp({ repo: 'shop', app: '-x' }))).toMatchObject({ code: 'BAD_REQUEST', message: 'invalid app name "-x": it must match ^[a-z][a-z0-9-]*$' });
    expect(await failure(client().appsList({ repo: 'nope' }))).toEqual({ code: 'NOT_FOUND', status: 404, message: 'no repo named "nope"' });
    expect(await failure(client().startApp({ repo: '.hidden', app: 'web' }))).toEqual({ code: 'BAD_REQUEST', status: 400, message: 'invalid repo ".hidden"' });
    expect(jobs.app.terminals!.list()).toEqual([]);
  });
});
