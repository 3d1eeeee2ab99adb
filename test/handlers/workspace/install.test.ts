/**
 * `POST /workspace/setup/install` through Intentic's client, over real folders, a real pty and a real `npm install`
 * of a `file:` dependency (offline: no registry is asked), held by its preinstall until the test lets it go. Setup
 * shows `installing` while it runs and `ready` after;
 * a failing install shows why in its terminal and setup does not say ready; bad dirs start nothing.
 */
import { existsSync } from 'node:fs';
import { lstat, readlink, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { orpcFailure } from '../../support/intentic-contract.ts';
import { GATED_PREINSTALL, heldAtGate, OFFLINE_NPMRC, openGate, useJobApp } from '../../support/job-app.ts';
import { waitFor } from '../../support/processes.ts';

const jobs = useJobApp({
  'lib/package.json': JSON.stringify({ name: 'lib', version: '1.0.0' }),
  'web/package.json': JSON.stringify({ name: 'web', version: '1.0.0', scripts: { preinstall: GATED_PREINSTALL }, dependencies: { lib: 'file:../lib' } }),
  'web/.npmrc': OFFLINE_NPMRC,
  'broken/package.json': JSON.stringify({ name: 'broken', version: '1.0.0', dependencies: { nope: 'file:../missing.tgz' } }),
  'broken/.npmrc': OFFLINE_NPMRC,
});

const client = () => jobs.client;
const stateOf = async (dir: string) => (await client().setup({})).projects.find((project) => project.dir === dir);
const failure = orpcFailure;

describe('POST /workspace/setup/install', () => {
  it('runs `npm install` of a file: dependency in panel-web--install: installing, then ready, its output in the terminal', async () => {
    expect(await stateOf('web')).toEqual({ dir: 'web', ecosystem: 'node', manager: 'npm', command: 'npm install', evidence: 'package.json (no lockfile)', state: 'needs-setup' });
    // `lib` declares nothing (ready), `zzz` is no project: both skipped silently.
    expect(await client().install({ dirs: ['zzz', 'web/', 'lib'] })).toEqual({ queued: ['web'] });
    expect((await stateOf('web'))?.state).toBe('installing'); // queued
    expect(await client().install({ dirs: ['web'] })).toEqual({ queued: [] }); // one at a time per project
    const session = await jobs.terminalOnceStarted('panel-web--install');
    expect(session.info()).toMatchObject({ command: 'npm install', cwd: join(jobs.root, 'web') });
    // Running (held by its preinstall): setup says installing, and a new request still queues nothing.
    await heldAtGate(jobs.root);
    expect(session.running).toBe(true);
    expect(await client().setup({})).toEqual({
      projects: [
        { dir: 'broken', ecosystem: 'node', manager: 'npm', command: 'npm install', evidence: 'package.json (no lockfile)', state: 'needs-setup' },
        { dir: 'lib', ecosystem: 'node', manager: 'npm', command: 'npm install', evidence: 'package.json (no lockfile)', state: 'ready' },
        { dir: 'web', ecosystem: 'node', manager: 'npm', command: 'npm install', evidence: 'package.json (no lockfile)', state: 'installing' },
      ],
    });
    expect(await client().install({ dirs: ['web'] })).toEqual({ queued: [] });
    await openGate(jobs.root);
    expect((await session.exited).code).toBe(0);
    expect(session.text()).toContain('gate-opened');
    expect(session.text()).toMatch(/added 1 package/);
    expect(await readlink(join(jobs.root, 'web/node_modules/lib'))).toBe('../../lib');
    await waitFor(async () => (await stateOf('web'))?.state !== 'installing', { timeoutMs: 15_000, what: 'web no longer installing' });
    expect(await stateOf('web')).toEqual({ dir: 'web', ecosystem: 'node', manager: 'npm', command: 'npm install', evidence: 'package-lock.json', state: 'ready' });
  });

  it('an install that fails shows why in its terminal, and setup does not say ready', async () => {
    expect(await client().install({ dirs: ['broken'] })).toEqual({ queued: ['broken'] });
    const session = await jobs.terminalOnceStarted('panel-broken--install');
    expect((await session.exited).code).not.toBe(0);
    expect(session.text()).toContain('ENOENT');
    expect(session.text()).toContain(join(jobs.root, 'missing.tgz'));
    await waitFor(async () => (await stateOf('broken'))?.state !== 'installing');
    expect((await stateOf('broken'))?.state).toBe('needs-setup');
  });

  it('refuses bad dirs before anything starts, naming them', async () => {
    await symlink('/tmp', join(jobs.root, 'out'));
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
    expect(jobs.app.terminals!.list()).toEqual([]);
    expect(existsSync(join(jobs.root, 'web/node_modules'))).toBe(false);
    expect((await lstat(join(jobs.root, 'out'))).isSymbolicLink()).toBe(true);
  });
});
