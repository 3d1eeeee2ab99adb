/**
 * `POST /workspace/setup/install` through Intentic's client, over real folders, a real pty and a real `npm install`
 * of a `file:` dependency (offline: no registry is asked). Setup shows `installing` while it runs and `ready` after;
 * a failing install shows why in its terminal and setup does not say ready; bad dirs start nothing.
 */
import { existsSync } from 'node:fs';
import { lstat, readlink, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NodeCommandLookup } from '../../../adapters/process/node-command-lookup.ts';
import { NodeJobHost } from '../../../adapters/process/node-job-host.ts';
import { NodePtyAdapter } from '../../../adapters/pty/node-pty-adapter.ts';
import type { WorkspaceApp } from '../../../runtime/app.ts';
import { intenticClient, orpcFailure } from '../../support/intentic-contract.ts';
import { waitFor } from '../../support/processes.ts';
import { nodeApp, tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';

const NPMRC = 'offline=true\naudit=false\nfund=false\nupdate-notifier=false\n';

let ws: TempWorkspace;
let app: WorkspaceApp;
let pty: NodePtyAdapter;
beforeEach(async () => {
  ws = await tempWorkspace({
    'lib/package.json': JSON.stringify({ name: 'lib', version: '1.0.0' }),
    'web/package.json': JSON.stringify({ name: 'web', version: '1.0.0', dependencies: { lib: 'file:../lib' } }),
    'web/.npmrc': NPMRC,
    'broken/package.json': JSON.stringify({ name: 'broken', version: '1.0.0', dependencies: { nope: 'file:../missing.tgz' } }),
    'broken/.npmrc': NPMRC,
  });
  pty = new NodePtyAdapter();
  app = nodeApp(ws.root, { pty, jobHost: new NodeJobHost(), commands: new NodeCommandLookup() });
});
afterEach(async () => {
  await app.close();
  await pty.killAll();
  await ws.cleanup();
});

const client = () => intenticClient(app).workspace;
const stateOf = async (dir: string) => (await client().setup({})).projects.find((project) => project.dir === dir);
const failure = orpcFailure;

describe('POST /workspace/setup/install', () => {
  it('runs `npm install` of a file: dependency in panel-web--install: installing, then ready, its output in the terminal', async () => {
    expect(await stateOf('web')).toEqual({ dir: 'web', ecosystem: 'node', manager: 'npm', command: 'npm install', evidence: 'package.json (no lockfile)', state: 'needs-setup' });
    // `lib` declares nothing (ready), `zzz` is no project: both skipped silently.
    expect(await client().install({ dirs: ['zzz', 'web/', 'lib'] })).toEqual({ queued: ['web'] });
    expect((await stateOf('web'))?.state).toBe('installing');
    expect(await client().install({ dirs: ['web'] })).toEqual({ queued: [] }); // one at a time per project
    const session = await waitFor(() => app.terminals!.get('panel-web--install'));
    expect(session.info()).toMatchObject({ command: 'npm install', cwd: join(ws.root, 'web') });
    expect((await session.exited).code).toBe(0);
    expect(session.text()).toMatch(/added 1 package/);
    expect(await readlink(join(ws.root, 'web/node_modules/lib'))).toBe('../../lib');
    await waitFor(async () => (await stateOf('web'))?.state === 'ready', { what: 'web ready' });
    expect(await stateOf('web')).toEqual({ dir: 'web', ecosystem: 'node', manager: 'npm', command: 'npm install', evidence: 'package-lock.json', state: 'ready' });
  });

  it('an install that fails shows why in its terminal, and setup does not say ready', async () => {
    expect(await client().install({ dirs: ['broken'] })).toEqual({ queued: ['broken'] });
    const session = await waitFor(() => app.terminals!.get('panel-broken--install'));
    expect((await session.exited).code).not.toBe(0);
    expect(session.text()).toContain('ENOENT');
    expect(session.text()).toContain(join(ws.root, 'missing.tgz'));
    await waitFor(async () => (await stateOf('broken'))?.state !== 'installing');
    expect((await stateOf('broken'))?.state).toBe('needs-setup');
  });

  it('refuses bad dirs before anything starts, naming them', async () => {
    await symlink('/tmp', join(ws.root, 'out'));
    const bad = (dir: string, why: string) => ({ code: 'BAD_REQUEST', status: 400, message: `invalid dir ${JSON.stringify(dir)}: ${why}` });
    for (const [dir, why] of [
      ['../x', 'has a ".." segment'],
      ['web/../../x', 'has a ".." segment'],
      ['/etc', 'is absolute'],
      ['web\\x', 'contains a backslash'],
      ['web\0', 'contains NUL'],
      ['out', 'it is outside the workspace'],
    ] as const) {
      // The good dir first: nothing of the request starts when any dir is bad.
      expect(await failure(client().install({ dirs: ['web', dir] })), dir).toEqual(bad(dir, why));
    }
    expect(await failure(client().install({ dirs: [] }))).toMatchObject({ code: 'BAD_REQUEST', message: 'invalid body: dirs: at least one dir' });
    expect(await failure(client().install({ dirs: Array.from({ length: 51 }, (_, i) => `d${i}`) }))).toMatchObject({ code: 'BAD_REQUEST', message: 'invalid body: dirs: at most 50 dirs' });
    expect(await failure(client().install({ dirs: ['a'.repeat(501)] }))).toMatchObject({ code: 'BAD_REQUEST', message: 'invalid body: dirs.0: a dir is at most 500 characters' });
    expect(app.terminals!.list()).toEqual([]);
    expect(existsSync(join(ws.root, 'web/node_modules'))).toBe(false);
    expect((await lstat(join(ws.root, 'out'))).isSymbolicLink()).toBe(true);
  });
});
