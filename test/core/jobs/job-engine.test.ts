/**
 * The job engine (core/jobs) over the real terminal manager, a real pty and real processes, with a ProjectModel-
 * shaped fake (the handler tests use the real model): installs one at a time per project and killed at the time
 * limit, the children's environment, dev servers on a free PORT killed as a tree, test runs in order.
 */
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NodeFileSystem } from '../../../adapters/fs/node-file-system.ts';
import { NodeJobHost } from '../../../adapters/process/node-job-host.ts';
import { NodePtyAdapter } from '../../../adapters/pty/node-pty-adapter.ts';
import { createJobEngine, type JobEngine } from '../../../core/jobs/job-engine.ts';
import { createInstallQueue } from '../../../core/jobs/install-queue.ts';
import { checkDirs, normalizeDir } from '../../../core/jobs/job-dirs.ts';
import { devTerminalName, installTerminalName, testTerminalName } from '../../../core/jobs/job-names.ts';
import type { AppInfo, ProjectModel, ProjectRecipe, SetupState } from '../../../core/projects/project-model.ts';
import type { RepoScope } from '../../../core/projects/repo-scope.ts';
import { createTerminalManager } from '../../../core/terminals/create-terminal-manager.ts';
import type { TerminalManager } from '../../../core/terminals/terminal-manager.ts';
import { WorkspaceError } from '../../../core/errors/workspace-error.ts';
import { waitFor } from '../../support/processes.ts';

const recipe = (dir: string, command: string): ProjectRecipe => ({ dir, ecosystem: 'node', manager: 'npm', command, evidence: 'package.json (no lockfile)', marker: 'node_modules' });

/** Projects with a fixed state each; apps per repo dir. */
class FakeModel implements ProjectModel {
  invalidations = 0;
  constructor(
    readonly list: ProjectRecipe[],
    readonly states: Record<string, Exclude<SetupState, 'installing'>> = {},
    readonly appsByRepo: Record<string, AppInfo[]> = {},
  ) {}
  async projects() {
    return this.list;
  }
  async installState(project: ProjectRecipe) {
    return { state: this.states[project.dir] ?? 'needs-setup' };
  }
  async members() {
    return [];
  }
  async apps(repoDir: string) {
    return this.appsByRepo[repoDir] ?? [];
  }
  invalidate() {
    this.invalidations++;
  }
}

let root: string;
let pty: NodePtyAdapter;
let terminals: TerminalManager;
let engine: JobEngine | undefined;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-jobs-')));
  pty = new NodePtyAdapter();
  terminals = createTerminalManager(pty, { ringBytes: 1 << 16, maxSessions: 16, reapMs: 60_000, stallMs: 10_000 });
});
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  await terminals.closeAll();
  await pty.killAll();
  await rm(root, { recursive: true, force: true });
});

const host = new NodeJobHost({ env: { ...process.env, npm_config_wsapi_probe: 'leaked', WSAPI_KEPT: 'kept' } });
const make = (model: ProjectModel, installTimeoutMs = 60_000) =>
  (engine = createJobEngine({ fs: new NodeFileSystem(), root, terminals, projects: model, host, installTimeoutMs }));
const scopeOf = (relative: string): RepoScope => ({ id: relative === '' ? 'root' : relative, dir: relative === '' ? root : join(root, relative), relative });
const exitOf = async (name: string) => (await terminals.get(name)!.exited).code;
const errorOf = async (call: Promise<unknown>) => {
  try {
    await call;
  } catch (error) {
    if (error instanceof WorkspaceError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a WorkspaceError');
};

/** Shell text that prints `said`, then waits until the test opens the gate of its cwd (`openGate`). */
const held = (said: string) => `echo ${said}; until [ -e gate ]; do sleep 0.02; done`;
const openGate = (dir: string) => writeFile(join(root, dir, 'gate'), '');

describe('names and dirs', () => {
  it('builds the panel names of the seed', () => {
    expect(installTerminalName('')).toBe('panel-root--install');
    expect(installTerminalName('apps/my.web')).toBe('panel-apps_my_web--install');
    expect(devTerminalName('org/shop', 'web')).toBe('panel-org_shop--web');
    expect(testTerminalName('root', 'unit_1')).toBe('panel-root--unit_1');
  });

  it('normalises dirs and refuses .., absolute, backslash and NUL, naming the dir', () => {
    expect(['', '.', './a/', 'a//b/.'].map(normalizeDir)).toEqual(['', '', 'a', 'a/b']);
    for (const [dir, why] of [['a/../b', 'has a ".." segment'], ['/etc', 'is absolute'], ['a\\b', 'contains a backslash'], ['a\0', 'contains NUL']]) {
      expect(() => normalizeDir(dir!)).toThrow(`invalid dir ${JSON.stringify(dir)}: ${why}`);
    }
  });

  it('refuses a dir whose real path leaves the base (a link out), and lets a missing one through', async () => {
    const { symlink } = await import('node:fs/promises');
    await mkdir(join(root, 'repo/pkg'), { recursive: true });
    await symlink(root, join(root, 'repo/up'));
    expect(await checkDirs(new NodeFileSystem(), join(root, 'repo'), ['pkg', 'nothing'], 'repo "repo"')).toEqual([
      { given: 'pkg', relative: 'pkg', real: join(root, 'repo/pkg'), isFolder: true },
      { given: 'nothing', relative: 'nothing', real: undefined, isFolder: false },
    ]);
    expect(await errorOf(checkDirs(new NodeFileSystem(), join(root, 'repo'), ['pkg', 'up'], 'repo "repo"'))).toEqual({
      code: 'bad-request',
      message: 'invalid dir "up": it is outside repo "repo"',
    });
  });
});

describe('installs', () => {
  it('queues only needs-setup and stale projects, in setup order; installing while queued or running; one at a time per project', async () => {
    await mkdir(join(root, 'a'));
    await mkdir(join(root, 'b'));
    // a's install runs until the test opens its gate.
    const model = new FakeModel([recipe('a', held('started-a')), recipe('b', 'true'), recipe('c', 'true')], { a: 'stale', b: 'ready' });
    const jobs = make(model);
    expect(await jobs.install(['c', 'b', 'a', 'zzz'])).toEqual(['a', 'c']);
    expect([jobs.isInstalling('a'), jobs.isInstalling('b'), jobs.isInstalling('c')]).toEqual([true, false, true]);
    expect(await jobs.install(['a'])).toEqual([]); // already installing (queued)
    const installA = model.list[0]!;
    const sessionA = await waitFor(() => terminals.get(installTerminalName('a')));
    await sessionA.waitForOutput('started-a', { timeoutMs: 5000 });
    expect(jobs.isInstalling('a')).toBe(true);
    expect(await jobs.install(['a'])).toEqual([]); // already installing (running)
    await openGate('a');
    await waitFor(() => !jobs.isInstalling('a'), { what: 'a installed' });
    expect(await exitOf(installTerminalName('a'))).toBe(0);
    expect(terminals.get(installTerminalName('a'))!.info()).toMatchObject({ cwd: join(root, 'a'), command: installA.command, running: false });
    expect(model.invalidations).toBeGreaterThanOrEqual(1);
  });

  it('runs a second install of one project only after the first finished', async () => {
    await mkdir(join(root, 'a'));
    const log = join(root, 'log');
    const model = new FakeModel([recipe('a', `echo start >> ${log}; echo end >> ${log}`)], { a: 'stale' });
    const jobs = make(model);
    expect(await jobs.install(['a'])).toEqual(['a']);
    // Once it finished, a new request queues it again; meanwhile a start that needs it waits behind it.
    await waitFor(() => !jobs.isInstalling('a'), { what: 'first install' });
    const [first, second] = await Promise.all([jobs.install(['a']), jobs.install(['a'])]);
    expect([first, second]).toEqual([['a'], []]);
    await waitFor(() => !jobs.isInstalling('a'), { what: 'second install' });
    expect(await readFile(log, 'utf8')).toBe('start\nend\nstart\nend\n');
  });

  it('queues an install behind a running one of the same project (as a dev-server start does), never two at once', async () => {
    await mkdir(join(root, 'a'));
    const log = join(root, 'log');
    // Held at the gate (created in a/): while the first runs, the second has not started.
    const project = recipe('a', `echo start >> ${log}; ${held('running')}; echo end >> ${log}`);
    const queue = createInstallQueue({ root, terminals, projects: new FakeModel([project]), host, timeoutMs: 60_000 });
    const both = Promise.all([queue.install(project), queue.install(project)]);
    expect(queue.isInstalling('a')).toBe(true);
    const first = await waitFor(() => terminals.get(installTerminalName('a')));
    await first.waitForOutput('running', { timeoutMs: 5000 });
    expect(await readFile(log, 'utf8')).toBe('start\n');
    expect(queue.isInstalling('a')).toBe(true);
    await openGate('a');
    expect(await both).toEqual([0, 0]);
    expect(terminals.get(installTerminalName('a'))).not.toBe(first); // the second ran in a fresh session of the name
    expect(await readFile(log, 'utf8')).toBe('start\nend\nstart\nend\n');
    expect(queue.isInstalling('a')).toBe(false);
  });

  it("installProject (an add-apps job's): onStart gets the running session; an abort drops a queued one and kills a running one", async () => {
    await mkdir(join(root, 'a'));
    const project = recipe('a', held('install-running'));
    const jobs = make(new FakeModel([project], { a: 'ready' })); // whatever its state: add-apps installs anyway
    const firstAbort = new AbortController();
    const secondAbort = new AbortController();
    let followed = '';
    const first = jobs.installProject(project, { signal: firstAbort.signal, onStart: (session) => void session.follow((bytes) => (followed += new TextDecoder().decode(bytes))) });
    let secondStarted = false;
    const second = jobs.installProject(project, { signal: secondAbort.signal, onStart: () => (secondStarted = true) });
    expect(jobs.isInstalling('a')).toBe(true);
    await waitFor(() => followed.includes('install-running'), { what: 'the followed output' });
    const session = terminals.get(installTerminalName('a'))!;
    expect(session.running).toBe(true);
    secondAbort.abort(); // still queued: it will never start
    firstAbort.abort(); // running: killed
    expect(await first).toBeNull();
    expect(await second).toBeNull();
    expect(secondStarted).toBe(false);
    expect(session.running).toBe(false);
    expect(terminals.get(installTerminalName('a'))).toBe(session); // no second session ran
    expect(jobs.isInstalling('a')).toBe(false);
  });

  it('kills an install at the time limit; the terminal keeps its output', async () => {
    await mkdir(join(root, 'a'));
    const jobs = make(new FakeModel([recipe('a', 'echo installing; sleep 30')]), 400);
    const started = Date.now();
    expect(await jobs.install(['a'])).toEqual(['a']);
    await waitFor(() => terminals.get(installTerminalName('a')));
    expect(await exitOf(installTerminalName('a'))).toBeNull();
    expect(Date.now() - started).toBeLessThan(3000);
    expect(terminals.get(installTerminalName('a'))!.text()).toContain('installing');
    await waitFor(() => !jobs.isInstalling('a'), { what: 'the queue to let go of a' });
  });

  it("gives children the daemon's env minus npm_*, PATH led by <cwd>/node_modules/.bin", async () => {
    await mkdir(join(root, 'a'));
    const jobs = make(new FakeModel([recipe('a', 'echo "probe=[${npm_config_wsapi_probe:-none}] kept=[$WSAPI_KEPT] path=[$PATH]"')]));
    await jobs.install(['a']);
    await waitFor(() => terminals.get(installTerminalName('a')));
    await exitOf(installTerminalName('a'));
    expect(terminals.get(installTerminalName('a'))!.text()).toContain(`probe=[none] kept=[kept] path=[${join(root, 'a')}/node_modules/.bin:`);
  });
});

describe('dev servers', () => {
  const serverJs = `require('node:http').createServer((q, s) => s.end('hi')).listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening on ' + process.env.PORT));`;

  async function webApp(script = 'node server.js') {
    await mkdir(join(root, 'shop/web/node_modules'), { recursive: true });
    await writeFile(join(root, 'shop/web/package.json'), JSON.stringify({ name: 'web', scripts: { dev: script } }));
    await writeFile(join(root, 'shop/web/server.js'), serverJs);
    const project = recipe('shop/web', 'npm install');
    return new FakeModel([project], { 'shop/web': 'ready' }, { [join(root, 'shop')]: [{ app: 'web', dir: 'shop/web', kind: 'vite', project }] });
  }

  it('starts `npm run dev` on a free PORT, healthy with a previewUrl; stop frees the port at once; unknown app NOT_FOUND', async () => {
    const jobs = make(await webApp());
    const shop = scopeOf('shop');
    expect(await jobs.apps(shop, 'example.test')).toEqual([{ app: 'web', running: false, healthy: false, kind: 'vite' }]);
    await jobs.startApp(shop, 'web');
    await jobs.startApp(shop, 'web'); // a running app is left alone
    const session = terminals.get('panel-shop--web')!;
    const port = Number((await session.waitForOutput(/listening on \d+/, { timeoutMs: 8000 })).match(/listening on (\d+)/)![1]);
    expect(session.info()).toMatchObject({ command: 'npm run dev', cwd: join(root, 'shop/web'), running: true });
    expect(await jobs.apps(shop, 'example.test')).toEqual([{ app: 'web', running: true, healthy: true, kind: 'vite', previewUrl: `http://example.test:${port}/` }]);
    await jobs.stopApp(shop, 'web');
    expect(await host.probe(port, 500)).toBe(false);
    expect(await jobs.apps(shop, 'example.test')).toEqual([{ app: 'web', running: false, healthy: false, kind: 'vite' }]);
    await jobs.stopApp(shop, 'web'); // nothing runs: still fine
    expect(await errorOf(jobs.startApp(shop, 'api'))).toEqual({ code: 'not-found', message: 'no app named "api" in repo "shop"' });
  });

  it('fills --preview-url from repo, app, panel and port', async () => {
    engine = createJobEngine({ fs: new NodeFileSystem(), root, terminals, projects: await webApp(), host, installTimeoutMs: 1000, previewUrl: 'https://preview-{panel}-x.zone/{repo}/{app}?p={port}' });
    await engine.startApp(scopeOf('shop'), 'web');
    const text = await terminals.get('panel-shop--web')!.waitForOutput(/listening on \d+/, { timeoutMs: 8000 });
    const port = text.match(/listening on (\d+)/)![1];
    expect((await engine.apps(scopeOf('shop'), 'h'))[0]!.previewUrl).toBe(`https://preview-shop--web-x.zone/shop/web?p=${port}`);
  });

  it('a dev server that never listens stays unhealthy, and stop still ends it', async () => {
    const jobs = make(await webApp('node -e "setInterval(() => {}, 1000)"'));
    await jobs.startApp(scopeOf('shop'), 'web');
    const started = Date.now();
    expect(await jobs.apps(scopeOf('shop'), 'h')).toEqual([{ app: 'web', running: true, healthy: false, kind: 'vite', previewUrl: expect.stringMatching(/^http:\/\/h:\d+\/$/) }]);
    expect(Date.now() - started).toBeLessThan(2000);
    await jobs.stopApp(scopeOf('shop'), 'web');
    expect(terminals.get('panel-shop--web')!.running).toBe(false);
  });
});

describe('test runs', () => {
  it('runs each dir in order — its test script, else vitest via npx — on past a failing one; a running key is a no-op', async () => {
    await mkdir(join(root, 'repo/a'), { recursive: true });
    await mkdir(join(root, 'repo/b'), { recursive: true });
    await writeFile(join(root, 'repo/a/package.json'), JSON.stringify({ name: 'a', scripts: { test: 'echo testing-a; exit 3' } }));
    // b's tests run until the test opens its gate: the second start surely finds the session running.
    await writeFile(join(root, 'repo/b/package.json'), JSON.stringify({ name: 'b', scripts: { test: held('testing-b') } }));
    const jobs = make(new FakeModel([recipe('repo', 'npm install')]));
    await jobs.runTests(scopeOf('repo'), 'unit', ['a', 'b/']);
    await jobs.runTests(scopeOf('repo'), 'unit', ['a']); // running: no-op
    const session = terminals.get('panel-repo--unit')!;
    await openGate('repo/b');
    expect((await session.exited).code).toBe(1);
    const text = session.text();
    expect(text.indexOf('==> a: npm test')).toBeGreaterThanOrEqual(0);
    expect(text.indexOf('testing-a')).toBeGreaterThan(text.indexOf('==> a: npm test'));
    expect(text.indexOf('==> b: npm test')).toBeGreaterThan(text.indexOf('testing-a'));
    expect(text.indexOf('testing-b')).toBeGreaterThan(text.indexOf('==> b: npm test'));
    expect(text.match(/==> /g)).toHaveLength(2); // the second start did not run again
  });

  it('uses `npx --no vitest run` in a dir without a test script; refuses bad sessions and dirs', async () => {
    await mkdir(join(root, 'repo/c'), { recursive: true });
    // A stand-in for vitest where npx finds a package's own binaries (no registry, and it shows its arguments).
    await mkdir(join(root, 'repo/node_modules/.bin'), { recursive: true });
    await writeFile(join(root, 'repo/node_modules/.bin/vitest'), '#!/bin/sh\necho "vitest stand-in: $*"\n', { mode: 0o755 });
    const jobs = make(new FakeModel([recipe('repo', 'npm install')]));
    const repo = scopeOf('repo');
    await jobs.runTests(repo, 's1', ['']);
    const session = terminals.get('panel-repo--s1')!;
    expect((await session.exited).code).toBe(0);
    const text = session.text();
    expect(text).toContain('==> repo: npx --no vitest run');
    expect(text.indexOf('vitest stand-in: run')).toBeGreaterThan(text.indexOf('==> repo: npx --no vitest run'));
    expect(await errorOf(jobs.runTests(repo, 'Bad', ['']))).toEqual({ code: 'bad-request', message: 'invalid session "Bad": it must match ^[a-z0-9][a-z0-9_-]*$' });
    expect(await errorOf(jobs.runTests(repo, 'install', ['']))).toEqual({ code: 'bad-request', message: 'invalid session "install": that terminal is taken (install, add_apps)' });
    expect(await errorOf(jobs.runTests(repo, 's2', ['c', 'missing']))).toEqual({ code: 'bad-request', message: 'invalid dir "missing": no such folder in repo "repo"' });
    expect(terminals.get('panel-repo--s2')).toBeUndefined();
  });
});
